package launch

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/specfile"
)

// One worker serves jobs of different axis values, of another --set of the same spec and
// of the first again: each gets its own configuration, the one the planner made (the id
// check in specCache.config passes for every one).
func TestWorkerSpecCacheConfigs(t *testing.T) {
	t.Parallel()
	p := smallPlan(t)
	s2, err := specfile.ParseOverrides(p.Spec.File, p.Spec.Text, specfile.Overrides{Sets: []string{"duration=200us"}})
	if err != nil {
		t.Fatal(err)
	}
	p2, err := sweep.Expand(s2, nil)
	if err != nil {
		t.Fatal(err)
	}
	type planJob struct {
		p *sweep.Plan
		j *sweep.Job
	}
	jobs := []planJob{{p, p.Jobs[0]}, {p, p.Jobs[1]}, {p2, p2.Jobs[1]}, {p, p.Jobs[1]}, {p, p.Jobs[0]}}
	var mu sync.Mutex
	got := map[string]config.Config{}
	job := func(ctx context.Context, cfg config.Config, id string, emit func(stats.Batch) error) (*stats.Result, error) {
		mu.Lock()
		got[id] = cfg
		mu.Unlock()
		return &stats.Result{Rec: stats.NewRecorder(id, nil)}, nil
	}
	var reqs []*workerRequest
	for _, pj := range jobs {
		reqs = append(reqs, newWorkerRequest(pj.p, pj.j))
	}
	serveJobs(t, reqs, job, hooks{}, func(i int, req *workerRequest, resp *workerResponse) {
		if resp.Err != "" {
			t.Fatalf("job %d: %s", i, resp.Err)
		}
		mu.Lock()
		defer mu.Unlock()
		if cfg := got[req.JobID]; !reflect.DeepEqual(cfg, jobs[i].j.Config) {
			t.Errorf("job %d (%s) ran with\n%+v\nwant\n%+v", i, req.JobID, cfg, jobs[i].j.Config)
		}
	})
	if len(got) != 3 {
		t.Errorf("%d distinct jobs ran, want 3", len(got))
	}
}

// The cache parses a spec once for the jobs that share its file, text, --set and --grid,
// again when one of them differs; a job's values set on its copy (a mix entry too) leave
// the cached base as parsed.
func TestSpecCache(t *testing.T) {
	t.Parallel()
	const text = `name: mixed
topology: {kind: star, hosts: 8}
workload:
  kind: mix
  mix:
    - {kind: incast, senders: 3, message_size: 64KB}
    - {kind: load, load: 0.5, data_tc: 2}
sweep:
  grid:
    switch.LossyAlpha: [1, 2]
`
	s, err := specfile.Parse("mixed.yaml", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := sweep.Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	var c specCache
	cfg0, err := c.config(newWorkerRequest(p, p.Jobs[0]))
	if err != nil {
		t.Fatal(err)
	}
	parsed, base := c.spec, c.spec.Base
	base.Workload.Mix = slices.Clone(base.Workload.Mix)
	for _, j := range []*sweep.Job{p.Jobs[1], p.Jobs[0]} {
		cfg, err := c.config(newWorkerRequest(p, j))
		if err != nil || !reflect.DeepEqual(cfg, j.Config) || c.spec != parsed {
			t.Errorf("job %s: %v, config as planned %v, spec parsed again %v", j.ID, err, reflect.DeepEqual(cfg, j.Config), c.spec != parsed)
		}
	}

	// A job's configuration shares nothing with the base: not its mix entries.
	cfg0.Workload.Mix[1].Load = 0.9
	// A job whose values reach into a mix entry (a request the planner cannot make: mix
	// entries are not swept) sets them on its own copy.
	req := newWorkerRequest(p, p.Jobs[1])
	req.Axes = append(req.Axes, axisSetting{"workload.mix.1.load", "0.25"})
	var values []string
	for _, a := range req.Axes {
		values = append(values, a.Path, a.Text)
	}
	_, id, err := sweep.JobConfig(p.Spec, values, req.Seed, req.Replicate)
	if err != nil {
		t.Fatal(err)
	}
	req.JobID = id
	if cfg, err := c.config(req); err != nil || cfg.Workload.Mix[1].Load != 0.25 {
		t.Fatalf("a job setting workload.mix.1.load: %v, load %v; want 0.25", err, cfg.Workload.Mix[1].Load)
	}
	if !reflect.DeepEqual(c.spec.Base, base) || c.spec.Base.Workload.Mix[1].Load != 0.5 {
		t.Errorf("the cached base changed with its jobs: mix %+v", c.spec.Base.Workload.Mix)
	}

	for _, change := range []func(*workerRequest){
		func(r *workerRequest) { r.SpecFile = "other.yaml" },
		func(r *workerRequest) { r.SpecText = []byte(strings.Replace(text, "senders: 3", "senders: 4", 1)) },
		func(r *workerRequest) { r.Sets = []string{"duration=300us"} },
		func(r *workerRequest) { r.Grids = []string{"switch.LossyAlpha=1,4"} },
	} {
		req := newWorkerRequest(p, p.Jobs[0])
		change(req)
		was := c.spec
		c.config(req) // its id check may refuse it: the spec is parsed anew all the same
		if c.spec == was {
			t.Errorf("a request of another spec (%q, %d bytes, sets %q, grids %q) reused the cached one", req.SpecFile, len(req.SpecText), req.Sets, req.Grids)
		}
	}
}
