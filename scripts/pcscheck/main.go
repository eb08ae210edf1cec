// Command pcscheck measures how often a study's selection is right: the probability of
// correct selection (studies.md "Selecting the best point") by macro-replications over a
// fixed design whose many replicates stand for the truth.
//
//	rocesweep run configs/quickstart.yaml --select=false --set replicates=2400 -o TRUTH
//	go run ./scripts/pcscheck -truth TRUTH -spec configs/quickstart.yaml -reps 200
//	go run ./scripts/pcscheck -truth TRUTH -spec configs/quickstart.yaml \
//	    -set objective.metric=pfc_paused_usec -set objective.indifference=10us \
//	    -set objective.subject_to='drops_lossless == 0'
//
// The truth directory's replicates are a pool: replicate r of every point is one row of
// the pool, so that the points keep their common random numbers. A macro-replication
// draws pool rows with replacement (its own seed) and runs the spec's selection over
// them, replicate j of every point being the j-th row drawn, until the procedure stops.
// Its answer is correct when the selected point is not unacceptable and its mean over
// the whole pool is less than the indifference worse than the best desirable point's
// (feasibility and means judged over the whole pool: the empirical distribution the
// macro-replications sample is the truth they are judged against); when no point is
// desirable, "infeasible" is correct too. A study with conditions (sweep.conditions) is
// judged by its combine: each, every condition's answer as above among that condition's
// settings; mean and worst, the selected setting against the best desirable setting on
// the weighted mean or the worst case of its cells' pool means, a setting being as bad
// as its worst cell's class. It prints each point's truth, the share of
// correct selections with a 95% Wilson interval, and the jobs spent.
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"

	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/selection"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/specfile"
	"github.com/rocesweep/rocesweep/sweep/study"
)

type sets []string

func (s *sets) String() string     { return strings.Join(*s, " ") }
func (s *sets) Set(v string) error { *s = append(*s, v); return nil }

func main() {
	truth := flag.String("truth", "", "a fixed-design results directory of the study's points (many replicates)")
	spec := flag.String("spec", "", "the study's spec (its objective and select: block)")
	reps := flag.Int("reps", 200, "macro-replications")
	seed := flag.Uint64("seed", 1, "seed of the first macro-replication")
	verbose := flag.Bool("v", false, "print every macro-replication's decision")
	var over sets
	flag.Var(&over, "set", "override a spec key: path=value (repeatable)")
	flag.Parse()
	if *truth == "" || *spec == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*truth, *spec, over, *reps, *seed, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "pcscheck:", err)
		os.Exit(1)
	}
}

func run(truthDir, specFile string, over []string, reps int, seed uint64, verbose bool) error {
	data, err := os.ReadFile(specFile)
	if err != nil {
		return err
	}
	s, err := specfile.Parse(specFile, data, over)
	if err != nil {
		return err
	}
	s.UseSelection()
	plan, err := sweep.Expand(s, nil)
	if err != nil {
		return err
	}
	tplan, _, err := study.Replan(truthDir)
	if err != nil {
		return err
	}
	if !slices.Equal(tplan.PointLabels(), plan.PointLabels()) {
		return fmt.Errorf("the truth directory's points %q are not the spec's %q", tplan.PointLabels(), plan.PointLabels())
	}
	jobs, err := resultsdir.ReadTable(truthDir, "jobs", nil)
	if err != nil {
		return err
	}
	cfg := plan.SelectionConfig()
	tplan.Spec.Objective = plan.Spec.Objective
	pool, err := tplan.Problem(jobs, cfg)
	if err != nil {
		return err
	}
	n := len(pool.Points[0].Reps)
	for i, pt := range pool.Points {
		if len(pt.Reps) != n {
			return fmt.Errorf("point %d has %d replicates in the truth, point 0 has %d", i, len(pt.Reps), n)
		}
		for r, o := range pt.Reps {
			if o.State == selection.Missing {
				return fmt.Errorf("the truth lacks replicate %d of %s (a run of another model version has other job ids)", r, pt.Label)
			}
		}
	}
	tr := judgeTruth(pool, cfg)
	obj := plan.Spec.Objective
	fmt.Printf("truth: %d replicates a point from %s; objective %s %s, indifference %s; subject to %s\n",
		n, truthDir, obj.Goal, obj.Metric, indiff(obj), strings.Join(obj.SubjectTo, " and "))
	for i, pt := range pool.Points {
		extra := ""
		if tr.primary != nil {
			extra = fmt.Sprintf("  primary %.5g (far %v)", tr.primary[i], tr.far[i])
		}
		fmt.Printf("  %-50s mean %12.5g  %s%s\n", pt.Label, tr.mean[i], tr.why[i], extra)
	}
	if tr.best >= 0 {
		fmt.Printf("best desirable point: %s (%.5g)\n", pool.Points[tr.best].Label, tr.mean[tr.best])
	} else {
		fmt.Println("no desirable point: only \"infeasible\" is correct")
	}

	grid, err := plan.Grid()
	if err != nil {
		return err
	}
	if grid != nil && pool.Near != nil {
		return fmt.Errorf("a secondary objective (then) with conditions is not judged here: the truth of nearness is per condition")
	}
	if grid != nil {
		fmt.Printf("settings x conditions (combine %s): %d settings, %d conditions\n", grid.Combine, len(grid.Settings), len(grid.Conditions))
	}
	var correct, decided int
	var jobsSpent []float64
	for m := range reps {
		rng := rand.New(rand.NewPCG(seed+uint64(m), 0x9e3779b97f4a7c15))
		var rows []int
		p := pool
		p.Points = make([]selection.Point, len(pool.Points))
		for i := range p.Points {
			p.Points[i].Label = pool.Points[i].Label
		}
		var d selection.Decision
		for {
			if grid != nil {
				d = selection.DecideConditions(p, *grid)
			} else {
				d = selection.Decide(p)
			}
			if d.State != selection.Running {
				break
			}
			// Each point asked for also runs 15 replicates ahead: the procedure ignores
			// replicates it has not reached, so the decision is the same in fewer calls.
			last := map[int]int{}
			for _, need := range d.Need {
				last[need.Point] = max(last[need.Point], need.Replicate+15)
			}
			for i, hi := range last {
				for len(rows) <= hi {
					rows = append(rows, rng.IntN(n))
				}
				reps := &p.Points[i].Reps
				for len(*reps) <= hi {
					*reps = append(*reps, selection.Obs{State: selection.Missing})
				}
				for j := range hi + 1 {
					if (*reps)[j].State == selection.Missing {
						(*reps)[j] = pool.Points[i].Reps[rows[j]]
					}
				}
			}
		}
		var ok bool
		if grid != nil {
			ok = tr.correctConditions(d, *grid, delta(obj, d))
		} else {
			ok = tr.correct(d, delta(obj, d))
		}
		if ok {
			correct++
		}
		if d.State == selection.Decided {
			decided++
		}
		jobsSpent = append(jobsSpent, float64(d.Jobs))
		if verbose {
			sel := "-"
			switch {
			case d.Best >= 0:
				sel = pool.Points[d.Best].Label
			case d.Conditions != nil && d.Conditions.Over != nil && d.Conditions.Over.Best >= 0:
				sel = grid.Settings[d.Conditions.Over.Best]
			}
			fmt.Printf("macro %3d: %-10s %-50s jobs %6d correct %v  (%s)\n", m, d.State, sel, d.Jobs, ok, d.Why)
			if d.State != selection.Decided {
				for _, i := range d.Survivors {
					fmt.Printf("    still in contention: %s (%d replicates)\n", pool.Points[i].Label, d.Used[i])
				}
			}
		}
	}
	lo, hi := wilson(correct, reps)
	slices.Sort(jobsSpent)
	fmt.Printf("correct selections: %d of %d = %.1f%% [%.1f, %.1f] (95%% Wilson); decided %d; jobs per selection: mean %.0f, median %.0f, max %.0f\n",
		correct, reps, 100*float64(correct)/float64(reps), 100*lo, 100*hi, decided, mean(jobsSpent), jobsSpent[len(jobsSpent)/2], jobsSpent[len(jobsSpent)-1])
	return nil
}

func indiff(o *question.Objective) string {
	if o.IndifferencePercent > 0 {
		return fmt.Sprintf("%g%%", o.IndifferencePercent)
	}
	return fmt.Sprintf("%g", o.Indifference)
}

// delta is the indifference the truth judges by: the objective's, or the one the
// decision resolved from its percent.
func delta(o *question.Objective, d selection.Decision) float64 {
	if o.IndifferencePercent > 0 {
		return d.Delta
	}
	return o.Indifference
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// wilson is the 95% Wilson score interval of k successes in n trials.
func wilson(k, n int) (lo, hi float64) {
	const z = 1.959963984540054
	p, nn := float64(k)/float64(n), float64(n)
	c := (p + z*z/(2*nn)) / (1 + z*z/nn)
	h := z / (1 + z*z/nn) * math.Sqrt(p*(1-p)/nn+z*z/(4*nn*nn))
	return c - h, c + h
}
