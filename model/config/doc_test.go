package config

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/internal/doctest"
)

// TestDocAttributes checks the attribute tables of docs/switch.md §3 and docs/nic.md §14
// against the schema: every documented attribute exists with the documented default, and
// every attribute of the device is documented.
func TestDocAttributes(t *testing.T) {
	for _, c := range []struct{ page, device string }{
		{"switch.md", "switch"},
		{"nic.md", "nic"},
		{"nic.md", "global"},
	} {
		t.Run(c.device, func(t *testing.T) { checkDocAttributes(t, c.page, c.device) })
	}
}

func checkDocAttributes(t *testing.T, page, device string) {
	documented := map[string]bool{}
	for _, tb := range doctest.LoadAll(t, page, "attributes "+device) {
		for _, row := range tb.Rows {
			name := strings.Trim(row[0], "`")
			a, err := resolve(device + "." + name)
			if err != nil {
				t.Errorf("%s: attribute %q: %v", tb.Where(), name, err)
				continue
			}
			documented[a.Path] = true
			if got := strings.Trim(tb.Cell(t, row[0], "default"), "`"); got != a.Default {
				t.Errorf("%s: %s default %q in the docs, %q in the schema (rocesweep defaults)", tb.Where(), name, got, a.Default)
			}
		}
		tb.AllChecked(t)
	}
	for _, a := range Schema() {
		if a.Device == device && !documented[a.Path] {
			t.Errorf("docs/%s: attribute %s is not documented (add a row to a table marked <!-- doctest: attributes %s -->)", page, a.Path, device)
		}
	}
}

// TestDocPaths: every attribute path the docs pages write in backticks
// (`switch.LossyAlpha`, `global.Mtu`, `workload.qps_per_pair`) is one a spec accepts.
func TestDocPaths(t *testing.T) {
	root := doctest.Root(t)
	pathRE := regexp.MustCompile("`((?:switch|nic|global|topology|workload)\\.[A-Za-z_][A-Za-z0-9_.]*)")
	n := 0
	for _, page := range doctest.Pages {
		data, err := os.ReadFile(filepath.Join(root, "docs", page))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range pathRE.FindAllStringSubmatch(line, -1) {
				if strings.HasSuffix(m[1], ".md") || strings.Contains(m[1], ".md#") {
					continue // a page (`switch.md §4.4`), not an attribute
				}
				n++
				if _, err := Canonical(strings.TrimSuffix(m[1], ".")); err != nil {
					t.Errorf("docs/%s:%d: `%s` is not an attribute path: %v", page, i+1, m[1], err)
				}
			}
		}
	}
	if n == 0 {
		t.Error("no attribute path found in docs/: the pattern is broken")
	}
	t.Logf("%d attribute paths in docs/ resolve", n)
}
