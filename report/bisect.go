package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/selection/ci"
)

// BisectView is a bisection's answer (resultsdir.BisectionStatus, replayed by the caller) as
// the page's first screen states it: per condition the smallest (largest) safe value,
// the value one resolution step beyond it that failed, the jobs it took, the seed's
// sizing guidance and how conservative that is; then how sure the answer is and what it
// cost.
type BisectView struct {
	State string
	// Head names the columns: the condition axes, the answer and the failing value.
	Condition, AnswerHead, FailsHead string
	Rows                             []BisectRow
	// HasFormula is set when some condition has the seed's guidance; FormulaWhat says
	// what it is (the first condition's rule).
	HasFormula  bool
	FormulaWhat string
	Guarantee   string
	Procedure   string
	Split       string
	Cost        string
	Next        string
	// Notes name the conditions without a trustworthy answer and why.
	Notes []string
}

// BisectRow is one condition of BisectView.
type BisectRow struct {
	Condition, State, Answer, Fails, Jobs string
	Formula, Margin, Pause                string
	Probes                                string // the values judged, in order: "1MB ✓, 500KB ✓, 250KB ✗ ..."
	Flag                                  bool   // the answer is not to be trusted (non-monotone, failed, none)
}

// bisectView renders st for the page; headline is the page's first sentence. wall is
// the jobs' summed wall_sec (NaN when unknown).
func bisectView(st *resultsdir.BisectionStatus, dir string, wall float64) (*BisectView, string) {
	v := &BisectView{State: st.State, AnswerHead: fmt.Sprintf("%s safe %s", st.Direction, st.Attr)}
	beyond := "below"
	if st.Direction == "largest" {
		beyond = "above"
	}
	v.FailsHead = fmt.Sprintf("fails at (one step %s)", beyond)
	v.Condition = "condition"
	if len(st.ConditionAxes) > 0 {
		v.Condition = "condition (" + strings.Join(st.ConditionAxes, ", ") + ")"
	}
	var answers []string
	for _, c := range st.Conditions {
		row := BisectRow{Condition: c.Label, State: c.State, Answer: "-", Fails: "-", Jobs: commas(c.Jobs), Formula: "-", Margin: "-"}
		if c.AnswerText != "" {
			row.Answer = c.AnswerText
		}
		switch {
		case c.FailsText != "":
			row.Fails = c.FailsText
		case c.AnswerText != "" && c.State == "answered":
			row.Fails = "none: the whole range holds"
		}
		if f := c.Formula; f != nil {
			v.HasFormula = true
			if v.FormulaWhat == "" {
				v.FormulaWhat = f.What
			}
			row.Formula, row.Pause = f.Text, f.Pause
			if f.MarginText != "" {
				row.Margin = f.MarginText
			}
		}
		var probes []string
		for _, p := range c.Probes {
			mark := map[string]string{"holds": "✓", "fails": "✗", "open": "…"}[p.Verdict]
			s := p.Value + " " + mark
			if p.Check {
				s += " (check)"
			}
			if !st.Deterministic && p.Verdict != "open" {
				s += fmt.Sprintf(" [%d runs]", p.Runs)
			}
			probes = append(probes, s)
		}
		row.Probes = strings.Join(probes, ", ")
		switch c.State {
		case "answered":
			answers = append(answers, c.Label+": "+c.AnswerText)
		case "running", "budget":
			row.Answer = "not yet"
			if c.State == "budget" {
				row.Answer = "stopped by the budget"
			}
			row.Fails = "-"
		default:
			row.Flag = true
			v.Notes = append(v.Notes, fmt.Sprintf("%s: %s.", c.Label, strings.TrimSuffix(c.Why, ".")))
			answers = append(answers, c.Label+": "+map[string]string{"non-monotone": "non-monotone", "none-safe": "none in the range", "failed": "a job failed"}[c.State])
		}
		v.Rows = append(v.Rows, row)
	}
	what := fmt.Sprintf("%s %s such that %s, to %s", capitalise(st.Direction), st.Attr, strings.Join(st.SubjectTo, " and "), st.Resolution)
	var headline string
	switch st.State {
	case "decided":
		headline = what + ": " + strings.Join(answers, "; ") + "."
	case "running":
		headline = fmt.Sprintf("Not answered yet: %s.", st.Why)
		v.Next = fmt.Sprintf("`rocesweep run SPEC -o %s --resume` runs the %s it needs next and bisects on.", dir, Plural(st.NeedJobs, "job"))
	case "budget":
		headline = "Not answered: " + st.Why + "."
		v.Next = fmt.Sprintf("Raise select.max_jobs (now %d) in the spec and continue: `rocesweep run SPEC -o %s --resume`.", st.MaxJobs, dir)
	}
	lattice := fmt.Sprintf("[%s, %s] in steps of %s (%s values)", st.Range[0], st.Range[1], st.Resolution, commas(st.Steps+1))
	checks := fmt.Sprintf("then %s where the halving skipped most, on the answer's safe side first (a probe that contradicts another is reported as a non-monotone response)", Plural(st.Checks, "check"))
	if st.Checks == 0 {
		checks = "and no monotonicity check (objective.checks: 0)"
	}
	v.Procedure = fmt.Sprintf("Bisection per condition over %s: the range's safe end first, then halving the interval between the last value that held and the first that failed, %s; at most %d probes a condition.",
		lattice, checks, st.ProbesPerCondition)
	if st.Deterministic {
		v.Guarantee = fmt.Sprintf("Exact: the spec says its jobs are deterministic (objective.deterministic: no random draw depends on the replicate), so one run decides each probe: %s holds at each answer and fails one resolution step %s it.",
			strings.Join(st.SubjectTo, " and "), beyond)
	} else {
		v.Guarantee = fmt.Sprintf("With %s confidence, for every condition at once: %s holds at the answer and fails one resolution step %s it, each judged by the sequential tests of subject_to "+
			"(a plain condition: refused at the first violation, accepted after %s clean runs, so a value violating it in %s of runs or more is refused; docs/statistics.md §3, §12). "+
			"That every value beyond the answer holds too rests on the response being monotone, which the checks test.",
			percent(st.Confidence), strings.Join(st.SubjectTo, " and "), beyond, ci.Num(float64(st.RareRuns)), percent(st.Rare))
		v.Split = fmt.Sprintf("The %s error allowed is split (Bonferroni) over %s × %d probes: %s per probe, %s per test (%s a probe).",
			percent(1-st.Confidence), Plural(len(st.Conditions), "condition"), st.ProbesPerCondition, percent(st.PerProbe), percent(st.PerTest), Plural(st.Tests, "test"))
	}
	grid := (st.Steps + 1) * len(st.Conditions)
	v.Cost = fmt.Sprintf("Cost: %s job%s", commas(st.Jobs), map[bool]string{true: "", false: "s"}[st.Jobs == 1])
	if !math.IsNaN(wall) {
		v.Cost += ", " + duration(wall) + " of simulation time"
	}
	if st.Deterministic {
		v.Cost += fmt.Sprintf("; a grid at this resolution would run %s jobs (%s values × %s).", commas(grid), commas(st.Steps+1), Plural(len(st.Conditions), "condition"))
	} else {
		v.Cost += "."
	}
	return v, headline
}

// commas writes n with a comma between groups of three digits: 5,005.
func commas(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// BisectTable writes a bisection's answers as the run's closing table: one line per
// condition with the answer, the failing value one step beyond it, the jobs it took and
// the seed's guidance, then how sure it is and what it cost.
func BisectTable(w io.Writer, st *resultsdir.BisectionStatus) {
	v, headline := bisectView(st, "DIR", math.NaN())
	fmt.Fprintf(w, "%s\n", strings.ReplaceAll(headline, "`", ""))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "  condition\t" + v.AnswerHead + "\t" + v.FailsHead + "\tjobs"
	if v.HasFormula {
		head += "\tseed's formula\tformula vs answer\tpause points"
	}
	fmt.Fprintln(tw, head+"\t")
	for _, r := range v.Rows {
		line := fmt.Sprintf("  %s\t%s\t%s\t%s", r.Condition, r.Answer, r.Fails, r.Jobs)
		if v.HasFormula {
			line += fmt.Sprintf("\t%s\t%s\t%s", r.Formula, r.Margin, r.Pause)
		}
		fmt.Fprintln(tw, line+"\t")
	}
	tw.Flush()
	if v.HasFormula {
		fmt.Fprintf(w, "  formula: %s\n", v.FormulaWhat)
	}
	for _, n := range v.Notes {
		fmt.Fprintf(w, "  %s\n", n)
	}
	fmt.Fprintf(w, "  %s\n", lowerFirst(v.Guarantee))
	if v.Split != "" {
		fmt.Fprintf(w, "  %s\n", lowerFirst(v.Split))
	}
	fmt.Fprintf(w, "  %s\n", lowerFirst(v.Cost))
	if v.Next != "" {
		fmt.Fprintf(w, "  next: %s\n", lowerFirst(strings.ReplaceAll(v.Next, "`", "")))
	}
}
