package report_test

import (
	"bytes"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/internal/resultstest"
	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/report"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/selection"
)

// gridLabels are the points of resultstest.Grid(alphas 0.25..2, Xoff 200KB..700KB) as the
// page names them, in the study's order.
var gridLabels = func() []string {
	var out []string
	for _, a := range []string{"0.25", "0.5", "1", "2"} {
		for _, x := range []string{"200KB", "400KB", "700KB"} {
			out = append(out, "LossyAlpha="+a+", StaticPoolXoffThreshold="+x)
		}
	}
	return out
}()

// selected is a sequential selection over the 4 x 3 grid with 5 replicates per point:
// fct_p99_usec_lossless = 80 + 10α + Xoff/10⁴ + 0.01·replicate, lowest at α 0.25, 200KB
// (mean 102.52), subject to drops_lossless == 0 (0 everywhere), with goodput also shown;
// every job completed msgs lossless messages.
func selected(t *testing.T, msgs float64) string {
	st := study{Sweep: resultstest.Grid([]float64{0.25, 0.5, 1, 2}, []float64{200e3, 400e3, 700e3}, 5, false),
		Objective: &question.Objective{Metric: "fct_p99_usec_lossless", Goal: question.Min, Indifference: 5,
			SubjectTo: []string{"drops_lossless == 0"}, Also: []string{"goodput_gbps"}},
		Select: &question.Config{Confidence: 0.95, Initial: 5, MaxJobs: 600},
		Edit: func(tb *resultsdir.Table) {
			addColumn(tb, "msgs_completed_lossless", func(int) float64 { return msgs })
			addColumn(tb, "msgs_started_lossless", func(int) float64 { return msgs })
		}}
	return st.write(t, filepath.Join(t.TempDir(), "res"))
}

// decision is a hand-made decision over the grid: every other point left after the first
// stage (round 0) or one or two rounds later, beaten by point 0.
func decision(state selection.State) *selection.Decision {
	d := &selection.Decision{State: state, Why: "one point is left in contention", Stage: 5, Best: 0, Survivors: []int{0},
		Jobs: 60, Delta: 5, Confidence: 0.95, H2: 7.2, FixedJobs: 240, Labels: gridLabels, Rare: 0.01, RareRunsOK: 615, RareRunsPair: 675,
		Split: selection.Split{Feasibility: 0.025, PerTest: 0.025 / 12, Tests: 1, Screening: 0.0125, Rare: 0.0125, PerPair: 0.0125 / 11}}
	for i := range gridLabels {
		d.Means = append(d.Means, 102.52+2.5*float64(i/3)+20*float64(i%3))
		d.Used = append(d.Used, 5)
		d.Feasible = append(d.Feasible, 1)
		if i > 0 {
			d.Eliminated = append(d.Eliminated, selection.Elimination{Point: i, Round: i % 3,
				Reason: "worse than " + gridLabels[0] + " by 2.5 on 5 paired replicates, beyond the indifference (5)", By: 0})
		}
	}
	return d
}

// The first screen of a decided selection: the objective, the selected point, the
// guarantee in words, what it cost against a fixed design, feasibility, the eliminated
// points with their rounds; the closing table ends with the same decision.
func TestFirstScreenDecided(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	dir := selected(t, 480)
	dec := decision(selection.Decided)
	r, err := report.Build(dir, report.Options{Decision: dec, Width: 300, Height: 200})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ what, got, want string }{
		{"objective", r.Objective, "lowest fct_p99_usec_lossless (p99 FCT of the lossless traffic), subject to drops_lossless == 0; indifference 5 µs (smaller differences do not matter); also shown: goodput_gbps"},
		{"headline", r.Headline, "Selected: LossyAlpha=0.25, StaticPoolXoffThreshold=200KB — lowest p99 FCT of the lossless traffic, 102.5 µs (mean of 5 replicates; p99 of 480 messages)."},
		{"guarantee", r.Decision.Guarantee, "With 95% confidence, the best of the 12 points that satisfy drops_lossless == 0 when the best leads every other by at least 5 µs (the indifference); a point closer than that to the best may be selected in its place."},
		{"feasibility", r.Decision.Feasibility, "Known feasible: drops_lossless == 0 at the selected point, by sequential tests over its 5 runs (a point that violates a plain condition in 1% of runs or more, or misses a bound by more than its tolerance, passes them with probability at most 0.2083% per test)."},
		{"split", r.Decision.Split, "The 5% error allowed is split: 2.5% to feasibility (0.2083% per test, 1 test per point), 1.25% to screening, 1.25% to the rare-event rule (0.1136% per pair: a pair with equal results, or a point whose results sit on one value, waits 675 replicates)."},
		// wall_sec = 0.5 + 0.01·replicate: 12 × 2.6 s used; 240 jobs × the mean 0.52 s.
		{"cost", r.Decision.Cost, "Cost: 60 jobs, 31.2 s of simulation time, against 240 jobs (about 2.08 min) for a fixed design of equal confidence: 25% of its jobs. " +
			"Simulation time is the jobs' summed wall_sec: how long the simulator ran for each, added up; not the run's elapsed time (jobs run in parallel), nor simulated time. The fixed design's is its jobs × the mean wall_sec per job."},
		{"procedure", r.Decision.Procedure, "Sequential selection (Kim and Nelson's KN, the variances of paired differences updated every round): 95% confidence, 5 replicates per point first, then one more replicate per point still in contention each round; events rarer than 1% of runs are below its resolution; at most 600 jobs."},
		{"next", r.Decision.Next, ""},
	} {
		if c.got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.what, c.got, c.want)
		}
	}
	if el := r.Decision.Eliminated; len(el) != 11 || el[0] != (report.Eliminated{Point: gridLabels[1], Round: "1", Mean: "122.5 µs", Used: 5,
		Reason: "worse than LossyAlpha=0.25, StaticPoolXoffThreshold=200KB by 2.5 on 5 paired replicates, beyond the indifference (5)"}) {
		t.Errorf("eliminated %+v", el)
	}
	// The answers follow the objective: its metric, then also, then the main metrics.
	var order []string
	for _, a := range r.Answers {
		order = append(order, a.Metric)
	}
	if got := strings.Join(order, " "); !strings.HasPrefix(got, "fct_p99_usec_lossless goodput_gbps slowdown_p99_lossless ") {
		t.Errorf("answers in order %s", got)
	}
	// The objective's charts and also's first, in full; the rest one heat map each.
	var focus []string
	for _, m := range r.FocusMetrics() {
		focus = append(focus, m.Metric)
		if len(m.Charts) != 3 {
			t.Errorf("%s: %d charts, want a heat map and 2 line charts", m.Metric, len(m.Charts))
		}
	}
	if strings.Join(focus, " ") != "fct_p99_usec_lossless goodput_gbps" {
		t.Errorf("focus metrics %v", focus)
	}
	for _, m := range r.OtherMetrics() {
		if len(m.Charts) != 1 || m.Charts[0].Kind != "heatmap" {
			t.Errorf("%s under All metrics: %d charts", m.Metric, len(m.Charts))
		}
	}

	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	// The decision comes first: objective, headline, guarantee, eliminated, then answers.
	last := -1
	for _, id := range []string{`id="objective"`, `id="headline"`, `id="guarantee"`, `id="cost"`, `id="eliminated"`, `id="answers"`, `id="config"`, `<details id="all-metrics">`} {
		i := strings.Index(page, id)
		if i < last {
			t.Errorf("%s at %d: not after the previous part (%d)", id, i, last)
		}
		last = i
	}
	if n := strings.Count(page, `<tr><td>LossyAlpha=`); n < 11 {
		t.Errorf("%d table rows name a point; want the 11 eliminated at least", n)
	}

	var pv strings.Builder
	if err := report.Pivot(&pv, dir, "", dec); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(pv.String()), "\n")
	if !strings.HasPrefix(lines[0], "fct_p99_usec_lossless (µs): ") {
		t.Errorf("closing table of %s", lines[0])
	}
	if want := "  selected: LossyAlpha=0.25, StaticPoolXoffThreshold=200KB, 102.5 µs (mean of 5 replicates; p99 of 480 messages); " +
		"with 95% confidence, the best of the 12 points that satisfy drops_lossless == 0 when the best leads every other by at least 5 µs (the indifference); a point closer than that to the best may be selected in its place; " +
		"known feasible: drops_lossless == 0 at the selected point, by sequential tests over its 5 runs"; lines[len(lines)-1] != want {
		t.Errorf("closing line\n got %q\nwant %q", lines[len(lines)-1], want)
	}
}

// Every state that is not a decision says why and what to run next, on the page and in
// the closing table.
func TestFirstScreenNotDecided(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	dir := selected(t, 480)
	budget := decision(selection.Budget)
	budget.Why = "the next round would take 612 jobs, more than select.max_jobs (600)"
	budget.Survivors, budget.Eliminated = []int{0, 1, 3}, budget.Eliminated[2:]
	running := decision(selection.Running)
	running.Why = "3 points are still in contention after round 2"
	running.Survivors, running.Eliminated = []int{0, 1, 3}, running.Eliminated[2:]
	running.Need = []selection.Need{{Point: 0, Replicate: 5}, {Point: 1, Replicate: 5}, {Point: 3, Replicate: 5}}
	ahead := *running
	ahead.Need = append(slices.Clone(running.Need), selection.Need{Point: 0, Replicate: 6}, selection.Need{Point: 1, Replicate: 6}, selection.Need{Point: 3, Replicate: 6})
	slices.SortFunc(ahead.Need, func(a, b selection.Need) int { return a.Point*100 + a.Replicate - b.Point*100 - b.Replicate })
	infeasible := decision(selection.Infeasible)
	infeasible.Why, infeasible.Best, infeasible.Survivors = "every point left: none is known to satisfy drops_lossless == 0", -1, nil
	for _, c := range []struct {
		name                string
		dec                 *selection.Decision
		headline, next, end string
	}{
		{"budget", budget,
			"Not decided: the next round would take 612 jobs, more than select.max_jobs (600).",
			"Raise select.max_jobs (now 600) in the spec and continue: `rocesweep run SPEC --select -o " + dir + " --resume`. The best so far is not known to be within 5 µs of the best.",
			"  not decided: the next round would take 612 jobs, more than select.max_jobs (600); best so far: LossyAlpha=0.25, StaticPoolXoffThreshold=200KB, 102.5 µs (mean of 5 replicates; p99 of 480 messages); " +
				"next: raise select.max_jobs (now 600) in the spec and continue: rocesweep run SPEC --select -o " + dir + " --resume. The best so far is not known to be within 5 µs of the best"},
		{"running", running,
			"Not decided yet: 3 points are still in contention after round 2.",
			"`rocesweep run SPEC --select -o " + dir + " --resume` runs the 3 missing jobs of this round and decides again.",
			"  not decided yet: 3 points are still in contention after round 2; best so far: LossyAlpha=0.25, StaticPoolXoffThreshold=200KB, 102.5 µs (mean of 5 replicates; p99 of 480 messages); " +
				"next: rocesweep run SPEC --select -o " + dir + " --resume runs the 3 missing jobs of this round and decides again"},
		// Jobs asked for ahead are not "the jobs it needs next" (once "runs the 175 jobs"
		// where 104 were missing from the round).
		{"running ahead", &ahead,
			"Not decided yet: 3 points are still in contention after round 2.",
			"`rocesweep run SPEC --select -o " + dir + " --resume` runs the 3 missing jobs of this round and 3 of the rounds after it (asked for ahead: nothing but a refusal can change before them) and decides again.",
			"  not decided yet: 3 points are still in contention after round 2; best so far: LossyAlpha=0.25, StaticPoolXoffThreshold=200KB, 102.5 µs (mean of 5 replicates; p99 of 480 messages); " +
				"next: rocesweep run SPEC --select -o " + dir + " --resume runs the 3 missing jobs of this round and 3 of the rounds after it (asked for ahead: nothing but a refusal can change before them) and decides again"},
		{"infeasible", infeasible,
			"No acceptable point: every point left: none is known to satisfy drops_lossless == 0.",
			"Every point left (table below): relax subject_to (drops_lossless == 0) or sweep other values.",
			"  no acceptable point: every point left: none is known to satisfy drops_lossless == 0; next: every point left (table below): relax subject_to (drops_lossless == 0) or sweep other values"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := report.Build(dir, report.Options{Decision: c.dec, Width: 200, Height: 150})
			if err != nil {
				t.Fatal(err)
			}
			if r.Headline != c.headline || r.Decision.Next != c.next {
				t.Errorf("headline %q\n    want %q\nnext %q\nwant %q", r.Headline, c.headline, r.Decision.Next, c.next)
			}
			if r.Decision.Guarantee != "" {
				t.Errorf("a guarantee without a decision: %q", r.Decision.Guarantee)
			}
			if c.dec.Best >= 0 && (len(r.Decision.Contenders) != 2 || r.Decision.Contenders[1] != gridLabels[3]) {
				t.Errorf("contenders %v", r.Decision.Contenders)
			}
			var b bytes.Buffer
			if err := r.WriteHTML(&b); err != nil {
				t.Fatal(err)
			}
			// The command is set as code, escaped.
			if strings.Contains(c.next, "`") && !strings.Contains(b.String(), "<code>rocesweep run SPEC --select -o "+dir+" --resume</code>") {
				t.Errorf("the page does not set the command as code")
			}
			var pv strings.Builder
			if err := report.Pivot(&pv, dir, "", c.dec); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(pv.String(), "\n"), "\n")
			if got := lines[len(lines)-1]; got != c.end {
				t.Errorf("closing line\n got %q\nwant %q", got, c.end)
			}
		})
	}
}

// A fixed design with replicates, replayed: usually not decided, and the page says that
// this design does not decide it and what a sequential selection would do.
func TestFirstScreenFixedDesign(t *testing.T) {
	st := pcieGen3(3)
	st.Objective = &question.Objective{Metric: "fct_p99_usec_lossless", Goal: question.Min, Indifference: 2,
		Default: "the workload is a lossless incast: its p99 FCT"}
	dir := st.write(t, filepath.Join(t.TempDir(), "res"))
	var labels []string
	for _, l := range []string{"4 / 4", "8 / 8", "16 / 16"} {
		for _, x := range []string{"[0.5, 0.8, 0, 0, 0, 0, 0, 0]", "[0.8, 0.8, 0, 0, 0, 0, 0, 0]", "[0.95, 0.8, 0, 0, 0, 0, 0, 0]"} {
			labels = append(labels, "{NICSide,HostSide}.LaneCount="+l+", PfcStaticXoffThreshold="+x)
		}
	}
	dec := &selection.Decision{State: selection.Running, Why: "3 points are not resolved within the indifference after the first stage",
		Stage: 3, Best: 6, Survivors: []int{6, 7, 8}, Jobs: 27, Delta: 2, Confidence: 0.95, FixedJobs: 90, Labels: labels,
		Means: []float64{400.5, 410.5, 420.5, 200.5, 210.5, 220.5, 100.5, 110.5, 120.5}, Used: []int{3, 3, 3, 3, 3, 3, 3, 3, 3}}
	for i := 0; i < 6; i++ {
		dec.Eliminated = append(dec.Eliminated, selection.Elimination{Point: i, Reason: "worse than " + labels[6] + " beyond the noise of their paired differences", By: 6})
	}
	r, err := report.Build(dir, report.Options{Decision: dec, Width: 200, Height: 150})
	if err != nil {
		t.Fatal(err)
	}
	if want := "This fixed design does not decide it: 2 points remain within reach of the best; a sequential selection would continue (`rocesweep run SPEC --select`)."; r.Headline != want {
		t.Errorf("headline %q\n    want %q", r.Headline, want)
	}
	if want := "Best so far: {NICSide,HostSide}.LaneCount=16 / 16, PfcStaticXoffThreshold=[0.5, 0.8, 0, 0, 0, 0, 0, 0], 100.5 µs (mean of 3 replicates; p99 of 150 messages)."; r.Decision.BestSoFar != want {
		t.Errorf("best so far %q\n       want %q", r.Decision.BestSoFar, want)
	}
	// wall_sec is 1 s per job.
	if want := "This design ran 27 jobs, 27 s of simulation time; a fixed design that decides at 95% confidence to within 2 µs would need 90 jobs (about 90 s)."; r.Decision.Cost != want {
		t.Errorf("cost %q\nwant %q", r.Decision.Cost, want)
	}
	if !strings.HasPrefix(r.ObjectiveDefault, "Objective chosen by default: the workload is a lossless incast: its p99 FCT.") {
		t.Errorf("objective default %q", r.ObjectiveDefault)
	}
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "a sequential selection would continue (<code>rocesweep run SPEC --select</code>).") {
		t.Errorf("the page lacks the fixed design's headline")
	}
}

// Without a decision the headline answers the objective, in its direction, and the closing
// table defaults to its metric.
func TestObjectiveHeadline(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	for _, c := range []struct {
		name     string
		obj      question.Objective
		edit     func(tb *resultsdir.Table)
		headline string
		focus    string
	}{
		// drops_lossy = 100α ties over the Xoff levels.
		{"drops", question.Objective{Metric: "drops_lossy", Goal: question.Min, Also: []string{"goodput_gbps"}}, nil,
			"Lowest drops of lossy packets: LossyAlpha=0.25, StaticPoolXoffThreshold=200KB, 25 ± 0 (as are 2 other points); 2 other points are within the noise of it.",
			"drops_lossy goodput_gbps"},
		{"max", question.Objective{Metric: "goodput_gbps", Goal: question.Max}, nil,
			"Highest goodput (Gbps): LossyAlpha=0.25, StaticPoolXoffThreshold=200KB, 377.5 ± 0.064 (as are 2 other points); 2 other points are within the noise of it.",
			"goodput_gbps"},
		// headroom's question: lossless drops, 0 at every point of this grid.
		{"constant", question.Objective{Metric: "drops_lossless", Goal: question.Min}, nil,
			"drops_lossless is 0 at every point: the objective does not tell the points apart.", ""},
		// the AI study's question, on results without collectives.
		{"null", question.Objective{Metric: "cct_p50_usec", Goal: question.Min}, func(tb *resultsdir.Table) { nullColumn(tb, "cct_p50_usec") },
			"cct_p50_usec is null at every point (nothing of that kind completed): the objective cannot tell the points apart.", ""},
		// subject_to narrows the objective's answer to the points meeting it in every replicate.
		{"subject_to", question.Objective{Metric: "fct_p99_usec_lossless", Goal: question.Min, SubjectTo: []string{"drops_lossy >= 50"}}, nil,
			"Lowest p99 FCT of the lossless traffic (µs), among the 9 of 12 points that meet drops_lossy >= 50: LossyAlpha=0.5, StaticPoolXoffThreshold=200KB, 105.0 ± 0.064 (p99 of 150 messages); better than every other point beyond the noise.",
			"fct_p99_usec_lossless"},
	} {
		t.Run(c.name, func(t *testing.T) {
			obj := c.obj
			st := study{Sweep: resultstest.Grid([]float64{0.25, 0.5, 1, 2}, []float64{200e3, 400e3, 700e3}, 2, false), Objective: &obj, Edit: c.edit}
			dir := st.write(t, filepath.Join(t.TempDir(), "res"))
			r, err := report.Build(dir, report.Options{Width: 200, Height: 150})
			if err != nil {
				t.Fatal(err)
			}
			if r.Headline != c.headline {
				t.Errorf("headline %q\n    want %q", r.Headline, c.headline)
			}
			var focus []string
			for _, m := range r.FocusMetrics() {
				focus = append(focus, m.Metric)
			}
			if strings.Join(focus, " ") != c.focus {
				t.Errorf("focus metrics %v, want %s", focus, c.focus)
			}
			if len(r.Answers) > 0 && c.focus != "" && r.Answers[0].Metric != obj.Metric {
				t.Errorf("first answer %s, want the objective's %s", r.Answers[0].Metric, obj.Metric)
			}
			var b strings.Builder
			if err := report.Pivot(&b, dir, "", nil); err != nil {
				t.Fatal(err)
			}
			if first := strings.TrimSuffix(strings.Fields(b.String())[0], ":"); first != obj.Metric {
				t.Errorf("closing table of %s, want %s", first, obj.Metric)
			}
		})
	}
}

// One replicate: "one replicate: no interval" where an interval would be, never "± 0"
// nor a count of points within noise.
func TestOneReplicate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "res")
	if err := resultstest.Write(dir, resultstest.Grid([]float64{0.25, 0.5, 1, 2}, []float64{200e3, 400e3, 700e3}, 1, false)); err != nil {
		t.Fatal(err)
	}
	r, err := report.Build(dir, report.Options{Width: 200, Height: 150})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Lowest p99 FCT of the lossless traffic (µs): LossyAlpha=0.25, StaticPoolXoffThreshold=200KB, 102.5 (one replicate: no interval; p99 of 150 messages)."; r.Headline != want {
		t.Errorf("headline %q\n    want %q", r.Headline, want)
	}
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"± 0", "points within noise", "(paired; bold"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page of one replicate says %q", bad)
		}
	}
	if !strings.Contains(page, "values (12 cells: one replicate: no interval)") {
		t.Errorf("the value tables do not say one replicate: no interval")
	}
	var pv strings.Builder
	if err := report.Pivot(&pv, dir, "", nil); err != nil {
		t.Fatal(err)
	}
	if first := strings.SplitN(pv.String(), "\n", 2)[0]; first != "fct_p99_usec_lossless (µs); one replicate: no interval:" {
		t.Errorf("closing table header %q", first)
	}
}

// Replicates that agree exactly (a deterministic study) get a note: one would do.
func TestDeterministicReplicates(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	s := resultstest.Grid([]float64{0.5, 1}, []float64{200e3, 700e3}, 3, false)
	for i := range s.Jobs {
		s.Jobs[i].Summary = s.Jobs[i-int(s.Jobs[i].Replicate)].Summary // replicate 0's values
	}
	dir := filepath.Join(t.TempDir(), "res")
	if err := resultstest.Write(dir, s); err != nil {
		t.Fatal(err)
	}
	r, err := report.Build(dir, report.Options{Width: 200, Height: 150})
	if err != nil {
		t.Fatal(err)
	}
	want := "Replicates agree exactly: every metric has the same value in all 3 replicates of every point, so every interval is ± 0. The study is deterministic; one replicate would do."
	if !strings.Contains(strings.Join(r.Notes, "\n"), want) {
		t.Errorf("notes %q", r.Notes)
	}
	// The synthetic grid's replicates differ by 0.01: no note.
	dir2 := filepath.Join(t.TempDir(), "res2")
	if err := resultstest.Write(dir2, resultstest.Grid([]float64{0.5, 1}, []float64{200e3, 700e3}, 3, false)); err != nil {
		t.Fatal(err)
	}
	if r, err = report.Build(dir2, report.Options{Width: 200, Height: 150}); err != nil || strings.Contains(strings.Join(r.Notes, "\n"), "agree exactly") {
		t.Errorf("notes %q (%v)", r.Notes, err)
	}
}

// A p99 shows the count it is over when the results have the count column, and one over
// fewer than 100 messages is marked with a dagger and the footnote.
func TestPercentileCounts(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	for _, c := range []struct {
		msgs            float64
		value, pivotEnd string
		few             bool
	}{
		{480, "102.5 ± 0.020", "p99 of 480 messages per job (msgs_started_lossless)", false},
		{40, "102.5 ± 0.020", "p99 of 40 messages per job (msgs_started_lossless); † p99 of fewer than 100 messages: the largest few completions, not a tail.", true},
	} {
		dir := selected(t, c.msgs)
		r, err := report.Build(dir, report.Options{Width: 200, Height: 150})
		if err != nil {
			t.Fatal(err)
		}
		a := r.Answers[0]
		wantCount := "p99 of " + map[bool]string{false: "480 messages", true: "40 messages†"}[c.few]
		if a.Value != c.value || a.Count != wantCount {
			t.Errorf("%v messages: answer %q (%q), want %q (%q)", c.msgs, a.Value, a.Count, c.value, wantCount)
		}
		if !strings.Contains(r.Headline, "("+wantCount+")") {
			t.Errorf("headline %q lacks %q", r.Headline, wantCount)
		}
		var b bytes.Buffer
		if err := r.WriteHTML(&b); err != nil {
			t.Fatal(err)
		}
		// fct_p99_usec, under All metrics, is over 15 messages per job: its own section
		// has the footnote either way; the first screen only with 40.
		note := "† p99 of fewer than 100 messages: the largest few completions, not a tail."
		top, _, _ := strings.Cut(b.String(), `id="config"`)
		if strings.Contains(top, note) != c.few {
			t.Errorf("%v messages: footnote shown %v", c.msgs, !c.few)
		}
		// The value table marks each cell.
		tb := regexp.MustCompile(`(?s)<table class="grid" data-metric="fct_p99_usec_lossless">(.*?)</table>`).FindStringSubmatch(b.String())
		if tb == nil || (strings.Count(tb[1], "†") == 12) != c.few {
			t.Errorf("%v messages: value table %v", c.msgs, tb)
		}
		var pv strings.Builder
		if err := report.Pivot(&pv, dir, "", nil); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(pv.String(), "\n  "+c.pivotEnd+"\n") || strings.Contains(pv.String(), "±0.020†") {
			t.Errorf("%v messages: closing table\n%s", c.msgs, pv.String())
		}
	}
}

// Null at every point is listed with the constants, not charted.
func TestUniformNull(t *testing.T) {
	st := study{Sweep: resultstest.Grid([]float64{0.5, 1}, []float64{200e3, 700e3}, 2, false),
		Edit: func(tb *resultsdir.Table) { nullColumn(tb, "cct_p50_usec"); nullColumn(tb, "cct_max_usec") }}
	dir := st.write(t, filepath.Join(t.TempDir(), "res"))
	r, err := report.Build(dir, report.Options{Width: 200, Height: 150})
	if err != nil {
		t.Fatal(err)
	}
	if line := r.UniformLine(); !strings.HasSuffix(line, "; null at every point: cct_p50_usec, cct_max_usec.") ||
		!strings.HasPrefix(line, "0 at every point: drops_lossless, nic_rx_drops, retransmits, data_packets, stuck_pause_ports, cct_iterations, busbw_gbps;") {
		t.Errorf("uniform line %q", line)
	}
	for _, c := range r.Charts() {
		if strings.HasPrefix(c.Metric, "cct_") || c.Metric == "drops_lossless" {
			t.Errorf("chart %s of a metric with one value everywhere", c.ID)
		}
	}
}

// A flat study: every acceptable point within the indifference of the selected one. The
// headline says nothing swept matters, with the spread, and not "Selected"; the closing
// line says the same.
func TestFirstScreenFlat(t *testing.T) {
	t.Parallel()
	dir := selected(t, 480)
	dec := decision(selection.Decided)
	dec.Eliminated = nil
	dec.Survivors, dec.Equivalent, dec.Flat = []int{0, 1, 2}, []int{0, 1, 2}, true
	dec.Means = []float64{102.52, 102.9, 103.1}
	r, err := report.Build(dir, report.Options{Decision: dec, Width: 300, Height: 200})
	if err != nil {
		t.Fatal(err)
	}
	want := "Nothing else swept here matters at this indifference: the 3 acceptable points (of 12: the others fail a constraint or a job) are within 0.58 µs (0.5626%) of each other on p99 FCT of the lossless traffic; any of them will do (the selection names LossyAlpha=0.25, StaticPoolXoffThreshold=200KB, 102.5 µs (mean of 5 replicates; p99 of 480 messages))."
	if r.Headline != want || strings.Contains(r.Headline, "Selected") {
		t.Errorf("headline\n got %q\nwant %q", r.Headline, want)
	}
	var pv strings.Builder
	if err := report.Pivot(&pv, dir, "", dec); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pv.String(), "  nothing else swept here matters at this indifference: the 3 acceptable points") {
		t.Errorf("closing table:\n%s", pv.String())
	}
}

// Every metric's best point, and the Pareto front, are among the points that meet the
// objective's constraints, as the decision's is: goodput is highest at α 0.25, whose
// 25 lossy drops fail drops_lossy >= 50, so its answer is α 0.5 (once α 0.25: the answer
// and the decision box named different points), and the front of (drops, p99) holds no
// α 0.25 point.
func TestAnswersRespectConstraints(t *testing.T) {
	t.Parallel()
	obj := question.Objective{Metric: "fct_p99_usec_lossless", Goal: question.Min, SubjectTo: []string{"drops_lossy >= 50"}}
	st := study{Sweep: resultstest.Grid([]float64{0.25, 0.5, 1, 2}, []float64{200e3, 400e3, 700e3}, 2, false), Objective: &obj}
	dir := st.write(t, filepath.Join(t.TempDir(), "res"))
	r, err := report.Build(dir, report.Options{Width: 200, Height: 150})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range r.Answers {
		if strings.HasPrefix(a.Best, "LossyAlpha=0.25,") {
			t.Errorf("%s: best %s fails the constraint", a.Metric, a.Best)
		}
		if a.Metric == "goodput_gbps" && (!strings.HasPrefix(a.Best, "LossyAlpha=0.5,") || !strings.Contains(a.Among, "meet drops_lossy >= 50")) {
			t.Errorf("goodput: best %s (%s)", a.Best, a.Among)
		}
	}
	if r.Pareto != nil {
		for _, p := range r.Pareto.Points {
			if strings.HasPrefix(p.Point, "LossyAlpha=0.25,") {
				t.Errorf("Pareto front holds %s, which fails the constraint", p.Point)
			}
		}
	}
}

// The cost counts every job the selection ran, not the first stage alone (once "60 jobs,
// 31.2 s" where 96 had run): 12 points × 8 replicates, the decision having used 5 each.
func TestCostCountsEveryJob(t *testing.T) {
	t.Parallel()
	st := study{Sweep: resultstest.Grid([]float64{0.25, 0.5, 1, 2}, []float64{200e3, 400e3, 700e3}, 8, false),
		Objective: &question.Objective{Metric: "fct_p99_usec_lossless", Goal: question.Min, Indifference: 5},
		Select:    &question.Config{Confidence: 0.95, Initial: 5, MaxJobs: 600}}
	dir := st.write(t, filepath.Join(t.TempDir(), "res"))
	r, err := report.Build(dir, report.Options{Decision: decision(selection.Decided), Width: 200, Height: 150})
	if err != nil {
		t.Fatal(err)
	}
	// wall_sec = 0.5 + 0.01·replicate: 12 × (8 × 0.5 + 0.28) = 51.36 s.
	want := "Cost: 96 jobs, 51.36 s of simulation time (60 jobs used by the procedure; 36 jobs ran ahead of it or after their point left), against 240 jobs"
	if !strings.HasPrefix(r.Decision.Cost, want) {
		t.Errorf("cost\n got %q\nwant %q...", r.Decision.Cost, want)
	}
}
