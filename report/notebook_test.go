package report_test

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/resultsdir"
)

// notebookPath is the analysis notebook that ships with rocesweep.
const notebookPath = "../notebooks/alpha_xoff.ipynb"

// notebook is the part of nbformat v4 the checks read.
type notebook struct {
	Cells []struct {
		CellType       string         `json:"cell_type"`
		ID             string         `json:"id"`
		Metadata       map[string]any `json:"metadata"`
		Source         []string       `json:"source"`
		Outputs        *[]any         `json:"outputs"`
		ExecutionCount any            `json:"execution_count"`
	} `json:"cells"`
	Metadata      map[string]any `json:"metadata"`
	Nbformat      int            `json:"nbformat"`
	NbformatMinor int            `json:"nbformat_minor"`
}

func readNotebook(t *testing.T) *notebook {
	t.Helper()
	data, err := os.ReadFile(notebookPath)
	if err != nil {
		t.Fatal(err)
	}
	var nb notebook
	if err := json.Unmarshal(data, &nb); err != nil {
		t.Fatalf("%s: %v", notebookPath, err)
	}
	return &nb
}

// loadRE matches the notebook's table reads: load("table" ...
var loadRE = regexp.MustCompile(`\bload\("([a-z_]+)"`)

// notebookTables returns the tables the notebook's code cells read, in order.
func notebookTables(nb *notebook) []string {
	var out []string
	for _, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		for _, m := range loadRE.FindAllStringSubmatch(strings.Join(c.Source, ""), -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// TestNotebookStructure checks what nbformat's validator would for v4 (required fields,
// cell types, unique ids) and that the notebook ships with outputs cleared.
func TestNotebookStructure(t *testing.T) {
	nb := readNotebook(t)
	if nb.Nbformat != 4 || nb.NbformatMinor < 5 {
		t.Fatalf("nbformat %d.%d, want 4.5+ (cell ids)", nb.Nbformat, nb.NbformatMinor)
	}
	if ks, ok := nb.Metadata["kernelspec"].(map[string]any); !ok || ks["language"] != "python" {
		t.Fatalf("kernelspec %v", nb.Metadata["kernelspec"])
	}
	ids := map[string]bool{}
	for i, c := range nb.Cells {
		if c.ID == "" || ids[c.ID] || !regexp.MustCompile(`^[a-zA-Z0-9-_]{1,64}$`).MatchString(c.ID) {
			t.Errorf("cell %d: bad or repeated id %q", i, c.ID)
		}
		ids[c.ID] = true
		if c.Metadata == nil || len(c.Source) == 0 {
			t.Errorf("cell %d: missing metadata or empty source", i)
		}
		switch c.CellType {
		case "markdown":
			if c.Outputs != nil {
				t.Errorf("cell %d: markdown cell with outputs", i)
			}
		case "code":
			if c.Outputs == nil || len(*c.Outputs) != 0 || c.ExecutionCount != nil {
				t.Errorf("cell %d: outputs not cleared (outputs %v, execution_count %v)", i, c.Outputs, c.ExecutionCount)
			}
		default:
			t.Errorf("cell %d: cell_type %q", i, c.CellType)
		}
	}
	// Every table goes through load(), which reads Parquet with pandas + pyarrow (CI
	// executes the notebook that way: .ci/run and notebooks/test_results.py) or, as the
	// documented fallback, the CSV of `rocesweep export`; it checks each table's rows and
	// dtypes, so nothing reads Parquet around it.
	tables := notebookTables(nb)
	if len(tables) < 4 {
		t.Fatalf("notebook reads %q through load(), want jobs and the record tables", tables)
	}
	for _, tb := range tables {
		if tb != "jobs" && !slices.Contains(resultsdir.Tables, tb) {
			t.Errorf("load(%q): not a table of a results directory", tb)
		}
	}
	for _, c := range nb.Cells {
		src := strings.Join(c.Source, "")
		if c.CellType == "code" && c.ID != "setup" && (strings.Contains(src, "read_parquet") || strings.Contains(src, "duckdb")) {
			t.Errorf("cell %s reads Parquet itself; go through load(), which checks rows and dtypes and has the CSV fallback", c.ID)
		}
	}
}
