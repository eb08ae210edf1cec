package resultsdir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"

	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
)

// Manifest is DIR/manifest.json (design.md "Results directory"): what `run` and `sim`
// write (sweep) and every reader reads. The field order is the file's: the writer
// marshals this struct, so existing directories keep byte-identical manifests.
type Manifest struct {
	Name     string   `json:"name"`
	SpecFile string   `json:"spec_file"`
	Spec     string   `json:"spec"` // the spec text as given
	Sets     []string `json:"sets,omitempty"`
	Grids    []string `json:"grids,omitempty"` // --grid overrides (sweep.Overrides)
	PlanSize int      `json:"plan_size"`
	PlanHash string   `json:"plan_hash"`
	Axes     []string `json:"axes"` // swept parameter paths, as the spec wrote them
	// AxisZip is parallel to Axes: -1 for a grid axis, else the index of the zip group
	// the axis moves with (its members are one dimension of the study). Nil in older
	// manifests: every axis on the grid.
	AxisZip      []int    `json:"axis_zip"`
	Replicates   int      `json:"replicates"`
	ModelVersion string   `json:"model_version"`
	Version      string   `json:"version"`
	CommandLine  []string `json:"command_line"`
	Start        string   `json:"start"` // RFC 3339, UTC
	Format       string   `json:"format"`
	Tables       []string `json:"tables"`
	// Shards is the number of shards the plan is split into in this directory (1 for an
	// unsharded run); every run into the directory must use it.
	Shards int `json:"shards,omitempty"`
	// Objective is the study's question, resolved (nil in manifests written before
	// objectives); Select the settings of a sequential selection (run --select), nil for
	// a fixed design.
	Objective *question.Objective `json:"objective,omitempty"`
	Select    *question.Config    `json:"select,omitempty"`

	// Sealed and Damage say what ReadManifest found of the file's checksum (Marshal):
	// Sealed, the file has one; Damage, why it does not match ("" when it does, or when
	// the file has none: a manifest written before manifests had checksums).
	Sealed bool   `json:"-"`
	Damage string `json:"-"`
}

// ReadManifest reads DIR/manifest.json. A missing file is an error wrapping
// fs.ErrNotExist.
func ReadManifest(dir string) (*Manifest, error) { return ReadManifestFS(osRead{}, dir) }

// ReadManifestFS is ReadManifest through fsys (the writer's file system; nil:
// dirfs.OS, which refuses a link).
func ReadManifestFS(fsys interface{ ReadFile(string) ([]byte, error) }, dir string) (*Manifest, error) {
	if fsys == nil {
		fsys = dirfs.OS{}
	}
	name := filepath.Join(dir, ManifestFile)
	data, err := fsys.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	m.Sealed, m.Damage = checkManifestSum(data)
	if len(m.AxisZip) != len(m.Axes) {
		m.AxisZip = nil // not parallel to Axes: read as every axis on the grid
	}
	return &m, nil
}

// Marshal returns the manifest as the writer writes it: indented JSON and a newline,
// with a checksum of its content as its last member, "crc": the CRC-32C (Castagnoli) of
// the file as it is without that member, as 8 lowercase hex digits, as a journal line
// has (docs/results.md §3). So an edit of the spec or the objective, which no plan hash
// catches, is found by status --verify, and refused by run.
func (m *Manifest) Marshal() []byte {
	data, _ := json.MarshalIndent(m, "", "  ")
	data = append(data, '\n') // ends with "\n}\n"
	sum := crc32.Checksum(data, castagnoli)
	return fmt.Appendf(data[:len(data)-len(manifestEnd)], "%s%08x\"%s", manifestCRC, sum, manifestEnd)
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// The checksum member of a manifest: the file ends with manifestCRC, 8 hex digits, a
// quote and manifestEnd.
const (
	manifestCRC = ",\n  \"crc\": \""
	manifestEnd = "\n}\n"
)

// checkManifestSum checks a manifest file's checksum member (Marshal): sealed is false for
// a file without one (written before manifests had checksums); damage says why the
// checksum does not match, "" when it does.
func checkManifestSum(data []byte) (sealed bool, damage string) {
	tail := len(manifestCRC) + 8 + 1 + len(manifestEnd)
	n := len(data)
	if n < tail || !bytes.HasSuffix(data, []byte("\""+manifestEnd)) || string(data[n-tail:n-tail+len(manifestCRC)]) != manifestCRC {
		if bytes.Contains(data, []byte(`"crc"`)) {
			return true, "its checksum member is not where rocesweep writes it (the last, on its own line): the file was edited"
		}
		return false, ""
	}
	want := string(data[n-tail+len(manifestCRC) : n-tail+len(manifestCRC)+8])
	body := append(append([]byte(nil), data[:n-tail]...), manifestEnd...)
	if got := fmt.Sprintf("%08x", crc32.Checksum(body, castagnoli)); got != want {
		return true, fmt.Sprintf("checksum %s, the file says %s: it was changed or damaged after rocesweep wrote it, so its spec and objective may not be what ran", got, want)
	}
	return true, ""
}

// IsSim reports whether the directory was written by `rocesweep sim` (one job, replaced
// whole by a re-run) rather than by a sweep.
func (m *Manifest) IsSim() bool { return len(m.CommandLine) >= 2 && m.CommandLine[1] == "sim" }

type osRead struct{}

func (osRead) ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }

// OverrideFlags returns the run's --set and --grid overrides as the flags that gave them
// ("--set k=v", "--grid k=a,b"), in that order.
func (m *Manifest) OverrideFlags() []string {
	var out []string
	for _, s := range m.Sets {
		out = append(out, "--set "+s)
	}
	for _, g := range m.Grids {
		out = append(out, "--grid "+g)
	}
	return out
}
