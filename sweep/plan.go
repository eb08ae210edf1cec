package sweep

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/rocesweep/rocesweep/model"
	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/sweep/specfile"
)

// Plan is the expanded list of jobs of a spec, in plan order (grid order, then
// replicates). Shards and resume select from it; the runner shuffles its selection.
type Plan struct {
	Spec *specfile.Spec
	Axes []*specfile.Axis // the axes of the jobs' Values, in order
	Jobs []*Job
	// Points is the number of grid points (before replicates) that passed the
	// constraints; Filtered counts the ones a constraint removed.
	Points, Filtered int

	// points holds each grid point's values and configuration, so that JobFor can make
	// the jobs of replicates beyond the plan's (a selection's later rounds).
	points []planPoint
	extra  map[[2]int]*Job
	// probes are a bisection's jobs beyond the plan, by (point, step, replicate)
	// (bisect.go); validate is Expand's, for them.
	probes   map[[3]int]*Job
	validate func(*config.Config) error
}

// planPoint is one grid point of a plan.
type planPoint struct {
	values  []specfile.Value
	cfg     config.Config
	invalid error
	first   int // index in Jobs of its replicate 0
}

// Job is one simulation: a grid point and a replicate.
type Job struct {
	Index     int    // position in the plan, from 0
	ID        string // stable: hash of the resolved config, replicate, model.Version
	Point     int    // grid point, from 0
	Replicate int    // from 0
	Seed      uint64 // derived; also Config.Seed
	Values    []specfile.Value
	Config    config.Config
	// Invalid is the rule the job breaks (config.Validate and the extra validator);
	// such a job cannot run.
	Invalid error
}

// pointLabel names a point by its axis values: "switch.LossyAlpha=0.5, switch.StaticPoolXoffThreshold=200KB".
func (p *Plan) pointLabel(values []specfile.Value) string {
	parts := make([]string, len(p.Axes))
	for i, a := range p.Axes {
		parts[i] = a.Path + "=" + values[i].Text
	}
	return strings.Join(parts, ", ")
}

// Label names the job for people: "job 7 (switch.LossyAlpha=0.5, switch.StaticPoolXoffThreshold=200KB, replicate 1)".
func (p *Plan) Label(j *Job) string {
	parts := make([]string, 0, len(p.Axes)+1)
	for i, a := range p.Axes {
		parts = append(parts, a.Path+"="+j.Values[i].Text)
	}
	if p.Spec.Replicates > 1 {
		parts = append(parts, "replicate "+strconv.Itoa(j.Replicate))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("job %d", j.Index)
	}
	return fmt.Sprintf("job %d (%s)", j.Index, strings.Join(parts, ", "))
}

// Expand builds the plan of a spec: the cartesian product of the grid axes and zip
// groups (in spec order, the last one varying fastest), or the sampled points crossed
// with the listed axes; points failing a constraint are dropped; each point runs
// Replicates times. validate, if non-nil, adds rules beyond config.Validate (e.g. the
// fabric's topology checks); a job breaking a rule gets Invalid set, it is not dropped.
func Expand(s *specfile.Spec, validate func(*config.Config) error) (*Plan, error) {
	p := &Plan{Spec: s, Axes: s.Axes, validate: validate}
	// A bisection's attribute is the last axis: the plan holds its first probe, the
	// range's safe end; its other end is checked too (bisect.go).
	var first, other *specfile.Value
	if s.Probe != nil {
		if err := s.CheckProbeSets(); err != nil {
			return nil, err
		}
		b := s.Objective.Bisect
		p.Axes = append(slices.Clone(s.Axes), s.Probe)
		for i, k := range []int{b.SafeStep(), b.Steps() - b.SafeStep()} {
			v, err := s.ProbeValue(b.Value(k))
			if err != nil {
				return nil, fmt.Errorf("%s: objective.%s: %w", s.Probe.Pos, b.Direction, err)
			}
			if i == 0 {
				first = &v
			} else {
				other = &v
			}
		}
	}
	// The size first, from the axis lengths alone: nothing is allocated for a plan
	// over MaxJobs.
	total, _, err := s.PlanSize()
	if err != nil {
		return nil, err
	}
	dims, err := dimensions(s)
	if err != nil {
		return nil, err
	}
	seen := map[string]int{} // job id of replicate 0 → its point: one point, one id
	idx := make([]int, len(dims))
	for n := 0; n < total; n++ {
		rem := n
		for d := len(dims) - 1; d >= 0; d-- {
			idx[d] = rem % len(dims[d])
			rem /= len(dims[d])
		}
		values := make([]specfile.Value, len(s.Axes), len(p.Axes))
		for d, dim := range dims {
			for _, av := range dim[idx[d]] {
				values[av.axis] = av.Value
			}
		}
		if first != nil {
			values = append(values, *first)
		}
		cfg := s.Base
		for i := range values {
			cfg.SetValue(values[i].Parsed) // parsed and checked once, by specfile.Parse
		}
		keep := true
		for _, c := range s.Constraints {
			ok, err := c.Eval(func(path string) (any, error) { return specfile.Lookup(&cfg, path) })
			if err != nil {
				return nil, fmt.Errorf("%s: sweep.constraint: %w", c.Pos, err)
			}
			if !ok {
				keep = false
				break
			}
		}
		if !keep {
			p.Filtered++
			continue
		}
		point := p.Points
		var invalid error
		if err := cfg.Validate(); err != nil {
			invalid = err
		} else if validate != nil {
			invalid = validate(&cfg)
		}
		if other != nil && invalid == nil {
			end := copyConfig(&cfg)
			end.SetValue(other.Parsed)
			if err := end.Validate(); err != nil {
				invalid = fmt.Errorf("at the other end of objective.range, %s = %s: %w", s.Objective.Bisect.Attr, other.Text, err)
			} else if validate != nil {
				if err := validate(&end); err != nil {
					invalid = fmt.Errorf("at the other end of objective.range, %s = %s: %w", s.Objective.Bisect.Attr, other.Text, err)
				}
			}
		}
		first := len(p.Jobs)
		for r := 0; r < s.Replicates; r++ {
			j := &Job{Index: len(p.Jobs), Point: point, Replicate: r, Values: values, Config: cfg, Invalid: invalid}
			j.Seed = deriveSeed(&cfg, r)
			j.Config.Seed = j.Seed
			j.ID = jobID(&j.Config, r)
			p.Jobs = append(p.Jobs, j)
		}
		// Two points with one resolved config (a zip group or a sample that repeats a
		// tuple, an axis and a --set that agree) would be one job twice under one id.
		if was, dup := seen[p.Jobs[first].ID]; dup {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s: point %s equals point %d; merged into one point", s.File, p.pointLabel(values), was))
			p.Jobs = p.Jobs[:first]
			continue
		}
		seen[p.Jobs[first].ID] = point
		p.points = append(p.points, planPoint{values: values, cfg: cfg, invalid: invalid, first: first})
		p.Points++
	}
	if len(p.Jobs) == 0 {
		at := s.File
		if len(s.Constraints) > 0 {
			at = s.Constraints[0].Pos
		}
		return nil, fmt.Errorf("%s: sweep.constraint: the sweep has no jobs: every one of %d points fails a constraint", at, p.Filtered)
	}
	if _, err := p.Grid(); err != nil {
		return nil, err
	}
	return p, nil
}

// JobFor returns the job of grid point `point` (0 ≤ point < Points) and replicate r ≥ 0:
// the plan's own job for r below the plan's replicates, else a job beyond the plan made
// the way Expand makes every job (same seed rule, same id rule), so that replicate r of a
// point is the same job whether a fixed design or a selection's round runs it. A job
// beyond the plan gets Index len(Jobs) + (r − replicates) × Points + point, so shards
// (index mod N) split every round evenly. The same (point, r) gives the same *Job.
func (p *Plan) JobFor(point, r int) *Job {
	pp := &p.points[point]
	n := p.Spec.Replicates
	if r < n {
		return p.Jobs[pp.first+r]
	}
	key := [2]int{point, r}
	if j := p.extra[key]; j != nil {
		return j
	}
	j := &Job{Index: len(p.Jobs) + (r-n)*p.Points + point, Point: point, Replicate: r, Values: pp.values, Config: pp.cfg, Invalid: pp.invalid}
	j.Seed = deriveSeed(&pp.cfg, r)
	j.Config.Seed = j.Seed
	j.ID = jobID(&j.Config, r)
	if p.extra == nil {
		p.extra = map[[2]int]*Job{}
	}
	p.extra[key] = j
	return j
}

// axisValue is a value of axis number axis.
type axisValue struct {
	specfile.Value
	axis int
}

// dimensions returns the independent dimensions of the product: one per grid axis,
// one per zip group, one for the sample (in place of the first sampled range).
func dimensions(s *specfile.Spec) ([][][]axisValue, error) {
	var dims [][][]axisValue
	zipDim := map[int]int{}
	sampleDim := -1
	for ai, a := range s.Axes {
		switch {
		case a.Zip >= 0:
			d, ok := zipDim[a.Zip]
			if !ok {
				d = len(dims)
				zipDim[a.Zip] = d
				dims = append(dims, make([][]axisValue, len(a.Values)))
			}
			for i, v := range a.Values {
				dims[d][i] = append(dims[d][i], axisValue{v, ai})
			}
		case s.Sample != nil && a.Range != nil:
			if sampleDim < 0 {
				sampleDim = len(dims)
				dims = append(dims, nil)
			}
		default:
			dim := make([][]axisValue, len(a.Values))
			for i, v := range a.Values {
				dim[i] = []axisValue{{v, ai}}
			}
			dims = append(dims, dim)
		}
	}
	if sampleDim >= 0 {
		pts, err := samplePoints(s)
		if err != nil {
			return nil, err
		}
		dims[sampleDim] = pts
	}
	return dims, nil
}

// samplePoints draws Sample.N points over the grid's ranges. Random: each coordinate
// uniform on its scale. LHS: each range is cut into N equal strata (on its scale) and
// every stratum is used once, in an independent random order per range.
func samplePoints(s *specfile.Spec) ([][]axisValue, error) {
	smp := s.Sample
	rng := rand.New(rand.NewPCG(smp.Seed, 0x5a3e1e))
	pts := make([][]axisValue, smp.N)
	for ai, a := range s.Axes {
		if a.Range == nil || a.Zip >= 0 {
			continue
		}
		var perm []int
		if smp.Method == "lhs" {
			perm = rng.Perm(smp.N)
		}
		for i := range pts {
			u := rng.Float64()
			if perm != nil {
				u = (float64(perm[i]) + u) / float64(smp.N)
			}
			v, err := s.RangeValue(a, u)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", a.Pos, err)
			}
			pts[i] = append(pts[i], axisValue{v, ai})
		}
	}
	return pts, nil
}

// canonicalJSON is the JSON of c without its name (names label results, they do not
// change them).
func canonicalJSON(c *config.Config) []byte {
	cc := *c
	cc.Name = ""
	data, err := json.Marshal(cc)
	if err != nil {
		// Validated configs hold no NaN or Inf; reaching here is a bug.
		panic(fmt.Sprintf("sweep: config does not marshal: %v", err))
	}
	return data
}

// deriveSeed returns the seed of replicate r (spec.md "Seeds and common random numbers",
// design.md "The engine"): a hash of the sweep seed (c.Seed as the spec, --set or an
// axis set it) and r, nothing else. Replicate r of every grid point therefore draws the
// same random numbers (common random numbers): a paired difference between two points
// measures the parameter, not the dice; and a record or report setting can never
// re-seed a job. The model derives one stream per purpose from it (workload shapes,
// start jitter, switch ECN and load-balancing draws, NIC clock offsets), so points
// whose traffic settings are equal draw identical workloads. The top bit is cleared so
// the seed fits the int64 `seed` column.
func deriveSeed(c *config.Config, r int) uint64 {
	h := sha256.New()
	fmt.Fprintf(h, "rocesweep-seed\x00%d\x00%d\x00", c.Seed, r)
	return binary.BigEndian.Uint64(h.Sum(nil)) &^ (1 << 63)
}

// jobID is the stable id of a job: 16 hex digits of SHA-256 over the resolved config
// (its derived seed included, its name excluded), the replicate and model.Version.
func jobID(c *config.Config, r int) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00", model.Version, r)
	h.Write(canonicalJSON(c))
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// Hash identifies the plan: its job ids in order. manifest.json records it, and
// --resume refuses a directory whose plan differs.
func (p *Plan) Hash() string {
	h := sha256.New()
	for _, j := range p.Jobs {
		h.Write([]byte(j.ID))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Invalid returns the jobs that break a rule, one per grid point.
func (p *Plan) Invalid() []*Job {
	var out []*Job
	last := -1
	for _, j := range p.Jobs {
		if j.Invalid != nil && j.Point != last {
			out = append(out, j)
			last = j.Point
		}
	}
	return out
}

// Shard is a deterministic 1/N of a plan: the jobs whose plan index is of shard K/N
// (resultsdir.InShard).
type Shard struct{ K, N int }

// ParseShard reads "K/N" (1 <= K <= N).
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	ki, err1 := strconv.Atoi(k)
	ni, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || ni < 1 || ki < 1 || ki > ni {
		return Shard{}, fmt.Errorf("--shard %q: want K/N with 1 <= K <= N, e.g. 2/8", s)
	}
	return Shard{ki, ni}, nil
}

// Tag is the shard in file names: "2of3"; "1of1" for the whole plan.
func (s Shard) Tag() string { return resultsdir.ShardTag(s.K, s.N) }

// Select returns the jobs of shard s, in plan order.
func (s Shard) Select(jobs []*Job) []*Job {
	if s.N <= 1 {
		return jobs
	}
	var out []*Job
	for _, j := range jobs {
		if resultsdir.InShard(j.Index, s.K, s.N) {
			out = append(out, j)
		}
	}
	return out
}

// Shuffle returns jobs in a seeded random order, so that the first jobs done are a fair
// sample of the sweep and the ETA is honest. The same seed gives the same order.
func Shuffle(jobs []*Job, seed uint64) []*Job {
	out := append([]*Job(nil), jobs...)
	rng := rand.New(rand.NewPCG(seed, 0x5ee9))
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// copyConfig returns a copy of c that shares nothing with it, so that setting a job's
// values (a workload.mix.N.key path writes into its mix entry) leaves c as it was. A
// Config is a value but for its workload's mix entries, each a Workload again
// (TestCopyConfigSharesNothing).
func copyConfig(c *config.Config) config.Config {
	cfg := *c
	cfg.Workload = copyWorkload(c.Workload)
	return cfg
}

func copyWorkload(w config.Workload) config.Workload {
	if w.Mix != nil {
		mix := make([]config.Workload, len(w.Mix))
		for i, m := range w.Mix {
			mix[i] = copyWorkload(m)
		}
		w.Mix = mix
	}
	return w
}

// JobConfig builds the configuration of a job the way Expand makes it, from its spec s,
// its axis values (path, text pairs, in Plan.Axes order), its seed and its replicate,
// and returns it with its job id: a worker process rebuilds its jobs so, from the spec
// it was sent, and checks the id against the one it was asked to run.
func JobConfig(s *specfile.Spec, values []string, seed uint64, replicate int) (config.Config, string, error) {
	cfg := copyConfig(&s.Base)
	for i := 0; i+1 < len(values); i += 2 {
		if err := cfg.Set(values[i], values[i+1]); err != nil {
			return config.Config{}, "", err
		}
	}
	cfg.Seed = seed
	return cfg, jobID(&cfg, replicate), nil
}

// InvalidError is the refusal of a plan with invalid jobs bad: it lists the invalid grid points, one line each.
func (p *Plan) InvalidError(bad []*Job) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d of %d grid points break a rule that stops a simulation:", p.Spec.File, len(bad), p.Points)
	for _, j := range bad {
		fmt.Fprintf(&b, "\n  %s: %s", p.Label(j), strings.ReplaceAll(j.Invalid.Error(), "\n", "\n    "))
	}
	b.WriteString("\n(fix the spec, add a sweep.constraint, or use --skip-invalid to run the rest)")
	return errors.New(b.String())
}
