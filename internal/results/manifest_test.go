package results

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// testdata/manifest.json is a manifest written by `rocesweep run` (configs/dcqcn.yaml,
// with an objective and --select): the reader reads every field by name, and the writer
// (Marshal) writes it back byte for byte, so directories written before keep reading
// and a rewritten manifest does not change.
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
	if out := m.Marshal(); !bytes.Equal(out, data) {
		t.Errorf("Marshal of testdata/manifest.json differs from the file (%d bytes, file %d)", len(out), len(data))
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
