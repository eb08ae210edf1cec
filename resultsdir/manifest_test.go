package resultsdir

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// testdata/manifest.json is a manifest written by `rocesweep run` (configs/dcqcn.yaml,
// with an objective and --select) before manifests had checksums: the reader reads every
// field by name, it reads as unsealed (not damaged), and the writer (Marshal) writes it
// back byte for byte but for its checksum member, so directories written before keep
// reading and a rewritten manifest changes in nothing else.
func TestManifestWrittenByRun(t *testing.T) {
	m, err := ReadManifest("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		field     string
		got, want any
	}{
		{"name", m.Name, "dcqcn"},
		{"spec_file", m.SpecFile, "configs/dcqcn.yaml"},
		{"plan_size", m.PlanSize, 90},
		{"plan_hash", m.PlanHash, "2f069cb05dc4f5cf51f15f7cf9642ae2"},
		{"replicates", m.Replicates, 5},
		{"model_version", m.ModelVersion, "rocesweep-model/0.8.0"},
		{"start", m.Start, "2026-12-01T23:51:04Z"},
		{"format", m.Format, "parquet"},
		{"shards", m.Shards, 1},
		{"len(axes)", len(m.Axes), 3},
		{"axes[2]", m.Axes[2], "nic.ControlIntervalDurationNs"},
		{"axis_zip", slices.Equal(m.AxisZip, []int{-1, -1, -1}), true},
		{"command_line[1]", m.CommandLine[1], "run"},
		{"IsSim", m.IsSim(), false},
		{"len(tables)", len(m.Tables), 1 + len(Tables)},
		{"objective.metric", m.Objective.Metric, "pfc_paused_usec"},
		{"select.initial", m.Select.Initial, 5},
		{"select.max_jobs", m.Select.MaxJobs, 900},
		{"spec set", m.Spec != "", true},
	} {
		if c.got != c.want {
			t.Errorf("testdata/manifest.json: %s = %v, want %v", c.field, c.got, c.want)
		}
	}
	data, err := os.ReadFile(filepath.Join("testdata", ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if m.Sealed || m.Damage != "" {
		t.Errorf("a manifest without a checksum: sealed %v, damage %q; want unsealed", m.Sealed, m.Damage)
	}
	out := m.Marshal()
	crc := regexp.MustCompile(`,\n  "crc": "[0-9a-f]{8}"\n}\n$`)
	if !crc.Match(out) || !bytes.Equal(crc.ReplaceAll(out, []byte("\n}\n")), data) {
		t.Errorf("Marshal of testdata/manifest.json differs from the file but for its checksum (%d bytes, file %d)", len(out), len(data))
	}
}

// The manifest's checksum covers every byte (issue 38: an edit of the spec text or of
// the objective's goal passed status --verify): a manifest as Marshal writes it reads
// sealed and sound; any edit of its content, of its checksum digits, or moving the
// checksum member reads as damaged, naming the checksums.
func TestManifestChecksum(t *testing.T) {
	m, err := ReadManifest("testdata")
	if err != nil {
		t.Fatal(err)
	}
	good := m.Marshal()
	for _, tc := range []struct {
		name   string
		edit   func(string) string
		damage string // substring; "" for sound
	}{
		{"as written", func(s string) string { return s }, ""},
		{"spec", func(s string) string { return strings.Replace(s, "ECN marking thresholds", "ECN marking threshold", 1) }, "checksum"},
		{"objective goal", func(s string) string { return strings.Replace(s, `"goal": "min"`, `"goal": "max"`, 1) }, "checksum"},
		{"crc digit", func(s string) string {
			i := strings.LastIndex(s, `"crc": "`) + len(`"crc": "`)
			return s[:i] + string("10"[s[i]&1]) + s[i+1:]
		}, "checksum"},
		{"crc moved", func(s string) string {
			i := strings.LastIndex(s, `,`+"\n"+`  "crc"`)
			return `{"crc": "00000000",` + s[1:i] + "\n}\n"
		}, "not where rocesweep writes it"},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, ManifestFile), []byte(tc.edit(string(good))), 0o644)
		m, err := ReadManifest(dir)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !m.Sealed || (tc.damage == "") != (m.Damage == "") || !strings.Contains(m.Damage, tc.damage) {
			t.Errorf("%s: sealed %v, damage %q; want damage with %q", tc.name, m.Sealed, m.Damage, tc.damage)
		}
	}
}

func TestReadManifestErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadManifest(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing manifest: %v, want fs.ErrNotExist", err)
	}
	os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"name": "x", "plan_size": "many"}`), 0o644)
	if _, err := ReadManifest(dir); err == nil || !bytes.Contains([]byte(err.Error()), []byte(filepath.Join(dir, ManifestFile))) {
		t.Errorf("bad plan_size: %v, want an error naming the file", err)
	}
	// axis_zip not parallel to axes is read as every axis on the grid.
	os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"axes": ["a", "b"], "axis_zip": [0]}`), 0o644)
	if m, err := ReadManifest(dir); err != nil || m.AxisZip != nil {
		t.Errorf("axis_zip of 1 for 2 axes: %v, %v; want nil", m.AxisZip, err)
	}
}
