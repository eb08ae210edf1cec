package sweep_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model"
	"github.com/rocesweep/rocesweep/model/fabric"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/specfile"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/golden-summary.json with this binary's metrics and model.Version")

const goldenFile = "testdata/golden-summary.json"

// regenerate is the one command that rewrites the golden file.
const regenerate = "go test ./sweep -run TestGoldenSummary -update"

// goldenSummary is testdata/golden-summary.json: the summary metrics of three fixed jobs
// of configs/ci.yaml and the model.Version that produced them.
type goldenSummary struct {
	ModelVersion string      `json:"model_version"`
	Jobs         []goldenJob `json:"jobs"`
}

type goldenJob struct {
	Point   string            `json:"point"` // the job's axis values (ids change with model.Version)
	Metrics map[string]string `json:"metrics"`
}

// Version discipline: the summary metrics of jobs 0, 3 and 5 of configs/ci.yaml, run by
// fabric.Run as a job of the runner is, are pinned with the model.Version that produced
// them. A change to the model that moves any of them fails here until model.Version
// (model/version.go) is bumped and the file regenerated. The metrics that measure the
// machine or the simulator, not the model, are left out: wall_sec, events_per_sec, and events,
// which a performance change may lower with every row the same (rowsdiff ignores it too).
func TestGoldenSummary(t *testing.T) {
	const file = "../configs/ci.yaml"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := specfile.Parse(file, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := sweep.Expand(spec, fabric.Validate)
	if err != nil {
		t.Fatal(err)
	}
	got := goldenSummary{ModelVersion: model.Version}
	for _, i := range []int{0, 3, 5} {
		j := p.Jobs[i]
		res, err := fabric.Run(context.Background(), j.Config, fabric.Options{JobID: j.ID})
		if err != nil {
			t.Fatalf("%s: %v", p.Label(j), err)
		}
		gj := goldenJob{Point: strings.TrimPrefix(p.Label(j), "job "), Metrics: map[string]string{}}
		for k, v := range res.Summary.Values() {
			switch name := stats.MetricNames[k]; name {
			case "wall_sec", "events", "events_per_sec":
			default:
				gj.Metrics[name] = strconv.FormatFloat(v, 'g', -1, 64)
			}
		}
		got.Jobs = append(got.Jobs, gj)
	}
	if *updateGolden {
		data, _ := json.MarshalIndent(got, "", "  ")
		if err := os.MkdirAll(filepath.Dir(goldenFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenFile, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s for %s", goldenFile, model.Version)
		return
	}
	data, err = os.ReadFile(goldenFile)
	if err != nil {
		t.Fatalf("%v; create it with: %s", err, regenerate)
	}
	var want goldenSummary
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatalf("%s: %v; regenerate it with: %s", goldenFile, err, regenerate)
	}
	var diffs []string
	for i, gj := range got.Jobs {
		if i >= len(want.Jobs) || want.Jobs[i].Point != gj.Point {
			diffs = append(diffs, "job "+gj.Point+": not in the golden file")
			continue
		}
		for _, name := range stats.MetricNames {
			if w, g := want.Jobs[i].Metrics[name], gj.Metrics[name]; w != g {
				diffs = append(diffs, "job "+gj.Point+": "+name+" "+w+" -> "+g)
			}
		}
	}
	switch {
	case want.ModelVersion != model.Version:
		t.Fatalf("model.Version is %s but %s holds the metrics of %s (%d differ); regenerate it with:\n  %s",
			model.Version, goldenFile, want.ModelVersion, len(diffs), regenerate)
	case len(diffs) > 0:
		t.Fatalf("the summary metrics moved without a model.Version change (still %s):\n  %s\n"+
			"A change to a job's outputs must bump model.Version in model/version.go (and say why in the commit); then regenerate with:\n  %s",
			model.Version, strings.Join(diffs, "\n  "), regenerate)
	}
}
