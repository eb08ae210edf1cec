package report_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/internal/resultstest"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/report"
	"github.com/rocesweep/rocesweep/selection"
)

// conditioned is resultstest.Grid over alphas 0.25, 1 and Xoff 200KB, 700KB with Xoff a
// condition: fct_p99_usec_lossless = 80 + 10α + Xoff/10⁴ (+ 0.01·replicate), so
//
//	           200KB   700KB   mean    worst
//	α 0.25     102.5   152.5   127.5   152.5
//	α 1        110     160     135     160
//
// and its decision by combine, replayed over the same means with a small noise (so that
// the paired differences vary) by selection.DecideConditions.
func conditioned(t *testing.T, combine question.Combine, then *question.Then) (string, *selection.Decision) {
	obj := &question.Objective{Metric: "fct_p99_usec_lossless", Goal: question.Min, Indifference: 1,
		Conditions: []string{"switch_StaticPoolXoffThreshold"}, Combine: combine, Then: then}
	st := study{Sweep: resultstest.Grid([]float64{0.25, 1}, []float64{200e3, 700e3}, 5, false), Objective: obj,
		Select: &question.Config{Confidence: 0.95, Initial: 5, MaxJobs: 400}}
	// The lossy class (TC 0) gains goodput with α, 1,000 + 400α Gbps: 1,100 at 0.25 and
	// 1,400 at 1; the lossless class (TC 1) has 800 Gbps everywhere.
	st.Sweep.Classes = func(j resultstest.Job) []stats.Class {
		a := j.Params[0]
		return []stats.Class{
			{JobID: j.ID, DataTC: 0, MsgsPosted: 100, MsgsCompleted: 100, CompletedFrac: 1, GoodputGbps: 1000 + 400*a, FctP99Usec: 300},
			{JobID: j.ID, DataTC: 1, Lossless: true, MsgsPosted: 100, MsgsCompleted: 100, CompletedFrac: 1, GoodputGbps: 800, FctP99Usec: 100},
		}
	}
	dir := st.write(t, filepath.Join(t.TempDir(), "res"))
	labels := []string{"LossyAlpha=0.25, StaticPoolXoffThreshold=200KB", "LossyAlpha=0.25, StaticPoolXoffThreshold=700KB",
		"LossyAlpha=1, StaticPoolXoffThreshold=200KB", "LossyAlpha=1, StaticPoolXoffThreshold=700KB"}
	mu := []float64{102.5, 152.5, 110, 160}
	noise := []float64{0, 0.02, -0.02, 0.01, -0.01}
	p := selection.Problem{Goal: question.Min, Delta: 1, Metric: obj.Metric, Config: *st.Select}
	for i, l := range labels {
		pt := selection.Point{Label: l}
		for j, e := range noise {
			pt.Reps = append(pt.Reps, selection.Obs{State: selection.OK, X: mu[i] + 0.01*float64(j) + e*float64(i+1)})
		}
		p.Points = append(p.Points, pt)
	}
	g := selection.Grid{Combine: combine, Settings: []string{"LossyAlpha=0.25", "LossyAlpha=1"},
		Conditions: []string{"StaticPoolXoffThreshold=200KB", "StaticPoolXoffThreshold=700KB"}, Cell: [][]int{{0, 1}, {2, 3}}}
	d := selection.DecideConditions(p, g)
	if d.State != selection.Decided {
		t.Fatalf("%s: %s (%s)", combine, d.State, d.Why)
	}
	return dir, &d
}

// The first screen and the closing table of a study with conditions: the headline names
// the combined answer with its per-condition means, the guarantee says what the
// confidence covers, the table lists the conditions (each) or the settings (mean,
// worst), and the split says how α was divided.
func TestFirstScreenConditions(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		combine                    question.Combine
		headline, guarantee, split string
		rows                       []string // the table's rows, cells joined by " | "
		pivot                      string
	}{
		{
			combine:   question.CombineEach,
			headline:  "Selected at every condition of StaticPoolXoffThreshold: LossyAlpha=0.25 — lowest p99 FCT of the lossless traffic (StaticPoolXoffThreshold=200KB: LossyAlpha=0.25 (102.5 µs); StaticPoolXoffThreshold=700KB: LossyAlpha=0.25 (152.5 µs)).",
			guarantee: "With 95% confidence for all 2 answers together: at each condition, the best setting there when it leads every other by at least 1 µs (the indifference); a setting closer than that may be selected in its place.",
			split:     "The 5% error allowed is split over the 2 conditions (Bonferroni): 2.5% each, and within each condition between screening, the rare-event rule and feasibility as for one selection.",
			rows: []string{
				"StaticPoolXoffThreshold=200KB | LossyAlpha=0.25 | 102.5 µs | 5 | decided: one setting survived",
				"StaticPoolXoffThreshold=700KB | LossyAlpha=0.25 | 152.5 µs | 5 | decided: one setting survived",
			},
			pivot: "  * StaticPoolXoffThreshold=200KB; selected setting LossyAlpha=0.25; p99 FCT of the lossless traffic 102.5 µs; replicates 5\n",
		},
		{
			combine:   question.CombineMean,
			headline:  "Selected: LossyAlpha=0.25 — lowest mean of p99 FCT of the lossless traffic over the 2 conditions of StaticPoolXoffThreshold, 127.5 µs (per condition: StaticPoolXoffThreshold=200KB: 102.5 µs; StaticPoolXoffThreshold=700KB: 152.5 µs).",
			guarantee: "With 95% confidence, the setting with the best mean over the 2 conditions of StaticPoolXoffThreshold when it leads every other by at least 1 µs (the indifference); a setting closer than that may be selected in its place.",
			split:     "The 5% error allowed is split: 2.5% to screening, 2.5% to the rare-event rule (2.5% per pair: a pair with equal results, or a point whose results sit on one value, waits 368 replicates).",
			rows: []string{
				"LossyAlpha=0.25 | 102.5 µs | 152.5 µs | 127.5 µs | 5 | selected",
				"LossyAlpha=1 | 110 µs | 160 µs | 135 µs | 5 | eliminated in round 0: worse than LossyAlpha=0.25 by 7.5 on 5 paired replicates, beyond the indifference (1)",
			},
			pivot: "  * LossyAlpha=0.25; StaticPoolXoffThreshold=200KB 102.5 µs; StaticPoolXoffThreshold=700KB 152.5 µs; mean 127.5 µs; replicates 5\n",
		},
		{
			combine:   question.CombineWorst,
			headline:  "Selected: LossyAlpha=0.25 — lowest worst case of p99 FCT of the lossless traffic over the 2 conditions of StaticPoolXoffThreshold, 152.5 µs at StaticPoolXoffThreshold=700KB (per condition: StaticPoolXoffThreshold=200KB: 102.5 µs; StaticPoolXoffThreshold=700KB: 152.5 µs).",
			guarantee: "With 95% confidence, the setting whose worst condition is best, when its worst case leads every other setting's by at least 1 µs (the indifference); a setting closer than that may be selected in its place.",
			split: "The 5% error allowed is split: 2.5% to screening, 2.5% to the rare-event rule (1.25% per pair: a pair with equal results, or a point whose results sit on one value, waits 437 replicates). " +
				"Screening and the rare-event rule are spread over the 2 cell pairs ((k − 1)·m: each other setting's worst cell against each cell of the best) that could eliminate the best setting.",
			rows: []string{
				"LossyAlpha=0.25 | 102.5 µs | 152.5 µs | 152.5 µs (StaticPoolXoffThreshold=700KB) | 5 | selected",
				"LossyAlpha=1 | 110 µs | 160 µs | 160 µs (StaticPoolXoffThreshold=700KB) | 5 | eliminated in round 0: at StaticPoolXoffThreshold=700KB worse than LossyAlpha=0.25 at each of its 2 conditions on 5 paired replicates: worst case 160 against 152.5, 7.5 worse, beyond the indifference (1)",
			},
			pivot: "  * LossyAlpha=0.25; StaticPoolXoffThreshold=200KB 102.5 µs; StaticPoolXoffThreshold=700KB 152.5 µs; worst case 152.5 µs (StaticPoolXoffThreshold=700KB); replicates 5\n",
		},
	} {
		t.Run(string(c.combine), func(t *testing.T) {
			t.Parallel()
			dir, dec := conditioned(t, c.combine, nil)
			r, err := report.Build(dir, report.Options{Decision: dec, Width: 300, Height: 200})
			if err != nil {
				t.Fatal(err)
			}
			v := r.Decision
			for _, x := range []struct{ what, got, want string }{
				{"headline", r.Headline, c.headline}, {"guarantee", v.Guarantee, c.guarantee}, {"split", v.Split, c.split},
			} {
				if x.got != x.want {
					t.Errorf("%s:\n got %q\nwant %q", x.what, x.got, x.want)
				}
			}
			var rows []string
			for _, row := range v.Conditions.Rows {
				var cells []string
				for _, cell := range row.Cells {
					cells = append(cells, cell.Text)
				}
				rows = append(rows, strings.Join(cells, " | "))
			}
			if strings.Join(rows, "\n") != strings.Join(c.rows, "\n") {
				t.Errorf("table:\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(c.rows, "\n"))
			}
			// Each condition's selected setting costs the lossy class 21.4% of its goodput
			// against α 1 there: said per condition, every class tabled per condition.
			if c.combine == question.CombineEach {
				wantCosts := []string{
					"at StaticPoolXoffThreshold=200KB costs the lossy class (TC 0) 21.43% of its goodput: 1100 Gbps against 1400 Gbps at LossyAlpha=1; that point left the selection in round 0: worse than LossyAlpha=0.25 by 7.5 on 5 paired replicates, beyond the indifference (1)",
					"at StaticPoolXoffThreshold=700KB costs the lossy class (TC 0) 21.43% of its goodput: 1100 Gbps against 1400 Gbps at LossyAlpha=1; that point left the selection in round 0: worse than LossyAlpha=0.25 by 7.5 on 5 paired replicates, beyond the indifference (1)",
				}
				if strings.Join(v.Costs, "\n") != strings.Join(wantCosts, "\n") {
					t.Errorf("costs:\n%s\nwant\n%s", strings.Join(v.Costs, "\n"), strings.Join(wantCosts, "\n"))
				}
				var classes []string
				for _, cl := range v.Classes {
					classes = append(classes, cl.Class+" | "+cl.Goodput)
				}
				if want := "StaticPoolXoffThreshold=200KB · TC 0, lossy | 1100 Gbps; StaticPoolXoffThreshold=200KB · TC 1, lossless | 800 Gbps; StaticPoolXoffThreshold=700KB · TC 0, lossy | 1100 Gbps; StaticPoolXoffThreshold=700KB · TC 1, lossless | 800 Gbps"; strings.Join(classes, "; ") != want {
					t.Errorf("classes %q\nwant %q", strings.Join(classes, "; "), want)
				}
			}
			if !strings.Contains(r.Objective, "settings compared over the conditions of StaticPoolXoffThreshold") {
				t.Errorf("objective %q", r.Objective)
			}
			var page bytes.Buffer
			if err := r.WriteHTML(&page); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(page.String(), `<table class="conditions" id="conditions" data-combine="`+string(c.combine)+`">`) {
				t.Errorf("the page has no conditions table")
			}
			var b bytes.Buffer
			if err := report.Pivot(&b, dir, "", dec); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), c.pivot) || !strings.Contains(b.String(), "  "+strings.ToLower(c.headline[:1])+strings.TrimSuffix(c.headline[1:], ".")+"\n") {
				t.Errorf("closing table:\n%s\nwant the headline and\n%s", b.String(), c.pivot)
			}
		})
	}
}

// With a secondary objective asked at each condition, the headline names the settings it
// chose among and the guarantee covers both metrics (docs/statistics.md §9).
func TestFirstScreenConditionsThen(t *testing.T) {
	t.Parallel()
	dir, dec := conditioned(t, question.CombineEach, &question.Then{Metric: "completed_frac_lossy", Goal: question.Max, Indifference: 0.02})
	r, err := report.Build(dir, report.Options{Decision: dec, Width: 300, Height: 200})
	if err != nil {
		t.Fatal(err)
	}
	if want := "highest completed_frac_lossy among the settings within 1 µs of the best p99 FCT of the lossless traffic ("; !strings.Contains(r.Headline, want) {
		t.Errorf("headline %q\nwant it to contain %q", r.Headline, want)
	}
	if want := "With 95% confidence for all 2 answers together: at each condition, a setting within 1.5 µs (the indifference and its tolerance, docs/statistics.md §9) of the best there on p99 FCT of the lossless traffic and, among the settings within 0.5 µs of that best, the best on completed_frac_lossy when it leads them by at least 0.02; a setting closer than that may be selected in its place."; r.Decision.Guarantee != want {
		t.Errorf("guarantee\n got %q\nwant %q", r.Decision.Guarantee, want)
	}
}

// The decision box's traffic classes are means over the replicates the decision used,
// later rounds included, not over the first stage the answers compare: lossy goodput
// 1,000 + 100·replicate Gbps over replicates 0-7 is 1,350 Gbps (1,200 over the first 5).
func TestClassesOverReplicatesUsed(t *testing.T) {
	t.Parallel()
	obj := &question.Objective{Metric: "fct_p99_usec_lossless", Goal: question.Min, Indifference: 1}
	st := study{Sweep: resultstest.Grid([]float64{0.25, 1}, []float64{200e3}, 8, false), Objective: obj,
		Select: &question.Config{Confidence: 0.95, Initial: 5, MaxJobs: 400}}
	st.Sweep.Classes = func(j resultstest.Job) []stats.Class {
		return []stats.Class{{JobID: j.ID, DataTC: 0, MsgsPosted: 10, MsgsCompleted: 10, CompletedFrac: 1, GoodputGbps: 1000 + 100*float64(j.Replicate), FctP99Usec: 300}}
	}
	dir := st.write(t, filepath.Join(t.TempDir(), "res"))
	dec := &selection.Decision{State: selection.Decided, Best: 0, Confidence: 0.95, Delta: 1,
		Labels: []string{"LossyAlpha=0.25, StaticPoolXoffThreshold=200KB", "LossyAlpha=1, StaticPoolXoffThreshold=200KB"},
		Means:  []float64{82.5, 90}, Used: []int{8, 5}}
	r, err := report.Build(dir, report.Options{Decision: dec, Width: 300, Height: 200})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Decision.Classes) != 1 || r.Decision.Classes[0].Goodput != "1350 Gbps" {
		t.Fatalf("classes %+v, want TC 0 at 1350 Gbps", r.Decision.Classes)
	}
}
