package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/selection"
	"github.com/rocesweep/rocesweep/selection/ci"
)

// DecisionView is a study's decision (Options.Decision) as the page's first screen states
// it: what was selected and how sure that is, what it cost, or why nothing is selected
// yet and what to run next. Texts may hold `code` spans (a command), which the page
// sets as code.
type DecisionView struct {
	State string // selection.State: running, decided, budget, infeasible
	// Fixed is set for the replay of a fixed design (the run had no --select): its
	// replicates as the selection's first stage.
	Fixed       bool
	Selected    string // the selected point (decided); "" for none
	Value       string // its mean in the metric's unit, with the replicates and count
	BestSoFar   string // not decided: "Best so far: <point>, <mean>."
	Guarantee   string // decided: "With 95% confidence, within 5 µs of the best of 12 points."
	Feasibility string // with subject_to: whether the selected point is known feasible
	Cost        string // the jobs and simulation time used, against a fixed design's
	Why         string // Decision.Why
	Next        string // the next step, with its command
	Procedure   string // the procedure's settings in words
	Split       string // how the confidence is divided between the procedure's statements
	// Contenders are the other points still in contention (running, budget).
	Contenders []string
	// Equivalent (decided) are the other points as good as the selected one to within
	// the indifference, as measured; Flat is set when that is every acceptable point:
	// the headline then says that nothing swept matters, not "Selected".
	Equivalent []string
	Flat       bool
	// Classes are every traffic class at the selected point against the best any point
	// achieved for it; Costs the sentences of the classes it costs more than
	// ClassIndifference.
	Classes []ClassView
	Costs   []string
	// FrontHead and Front (a Pareto objective): the metrics, and the front's points
	// with their means.
	FrontHead  []string
	Front      []FrontRow
	Eliminated []Eliminated
	Few        bool // a p99 above is over fewer than 100 messages (the page adds the footnote)
	// Conditions is the combined answer of a study with conditions (conditions.go); nil
	// for a plain selection.
	Conditions *ConditionsView
}

// FrontRow is one point of a Pareto front with its means, one per metric.
type FrontRow struct {
	Point  string
	Values []string
}

// Eliminated is one point that left the selection, in the order they left.
type Eliminated struct {
	Point, Round, Mean, Reason string
	Used                       int // replicates the procedure used
}

// continueCmd is the command that continues a sequential selection in dir.
func continueCmd(dir string) string {
	return "rocesweep run SPEC --select -o " + dir + " --resume"
}

// sentence ends s with a full stop unless it ends with punctuation already.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") {
		return s
	}
	return s + "."
}

// duration formats seconds of simulation time: "43.5 s", "3.5 min", "2.1 h".
func duration(sec float64) string {
	switch {
	case sec < 120:
		return ci.Num(sec) + " s"
	case sec < 2*3600:
		return ci.Num(sec/60) + " min"
	}
	return ci.Num(sec/3600) + " h"
}

// decisionView renders dec for the page; headline is the page's first sentence. dir is
// the results directory (for the commands), st the ok jobs (for simulation time and
// percentile counts of the points the decision's labels name).
func decisionView(dec *selection.Decision, m *resultsdir.Manifest, st *study, dir string) (v *DecisionView, headline string) {
	if dec.Conditions != nil {
		return conditionsView(dec, m, st, dir)
	}
	obj := m.Objective
	metric, goal, subject := "objective", "lowest", ""
	if obj != nil {
		metric, subject = obj.Metric, strings.Join(obj.SubjectTo, " and ")
		if obj.Goal == question.Max {
			goal = "highest"
		}
		if t := obj.Then; t != nil {
			// The selection is on then's metric, among the points near the best on the
			// primary.
			near := fmt.Sprintf("within %s of the best on %s", amount(obj.Metric, obj.Indifference), obj.Metric)
			metric, goal = t.Metric, map[bool]string{true: "highest", false: "lowest"}[t.Goal == question.Max]
			if subject != "" {
				subject = near + " and " + subject
			} else {
				subject = near
			}
		}
	}
	k := max(len(dec.Labels), len(dec.Means)) // the points
	label := func(i int) string {
		if i >= 0 && i < len(dec.Labels) {
			return dec.Labels[i]
		}
		return fmt.Sprintf("point %d", i)
	}
	// rowsOf returns the jobs rows of the replicates the procedure used at point i (nil
	// when its label names no point of these results).
	rowsOf := func(i int) []int {
		if i < 0 || i >= len(dec.Labels) {
			return nil
		}
		used := -1 // every replicate
		if i < len(dec.Used) {
			used = dec.Used[i]
		}
		return st.usedRows(dec.Labels[i], used)
	}
	mean := func(i int) string {
		if i < 0 || i >= len(dec.Means) || math.IsNaN(dec.Means[i]) {
			return "-"
		}
		s := amount(metric, dec.Means[i])
		var paren []string
		if i < len(dec.Used) {
			paren = append(paren, "mean of "+Plural(dec.Used[i], "replicate"))
		}
		if c := countOf(st.jobs, metric, rowsOf(i)); c != nil {
			paren = append(paren, c.String())
		}
		if len(paren) > 0 {
			s += " (" + strings.Join(paren, "; ") + ")"
		}
		return s
	}
	// Before the first stage is complete the decision has no resolved indifference or
	// confidence yet: the objective's and the settings' stand in.
	confidence := dec.Confidence
	if confidence == 0 {
		confidence = question.DefaultConfidence
		if m.Select != nil {
			confidence = m.Select.WithDefaults(k).Confidence
		}
	}
	conf := ci.Num(100*confidence) + "%"
	delta := "the indifference"
	switch {
	case dec.Delta > 0:
		delta = amount(metric, dec.Delta)
	case obj != nil && obj.Indifference > 0:
		delta = amount(metric, obj.Indifference)
	}
	v = &DecisionView{State: string(dec.State), Fixed: m.Select == nil, Why: sentence(dec.Why)}
	if dec.Best >= 0 {
		v.Selected, v.Value = label(dec.Best), mean(dec.Best)
	}
	for _, i := range dec.Survivors {
		if i != dec.Best {
			v.Contenders = append(v.Contenders, label(i))
		}
	}
	for _, e := range dec.Eliminated {
		el := Eliminated{Point: label(e.Point), Round: fmt.Sprint(e.Round), Mean: "-", Reason: e.Reason}
		if e.Point >= 0 && e.Point < len(dec.Means) && !math.IsNaN(dec.Means[e.Point]) {
			el.Mean = amount(metric, dec.Means[e.Point])
		}
		if e.Point >= 0 && e.Point < len(dec.Used) {
			el.Used = dec.Used[e.Point]
		}
		v.Eliminated = append(v.Eliminated, el)
	}
	if m.Select != nil {
		c := m.Select.WithDefaults(k)
		first := Plural(c.Initial, "replicate")
		if dec.FirstStage > c.Initial {
			first = fmt.Sprintf("%s (extended from %d: the paired differences looked heavy-tailed)", Plural(dec.FirstStage, "replicate"), c.Initial)
		}
		v.Procedure = fmt.Sprintf("Sequential selection (Kim and Nelson's KN, the variances of paired differences updated every round): %s confidence, %s per point first, "+
			"then one more replicate per point still in contention each round; events rarer than %s of runs are below its resolution; at most %s.",
			conf, first, percent(c.Rare), Plural(c.MaxJobs, "job"))
	} else {
		v.Procedure = fmt.Sprintf("The selection procedure (KN) replayed over this fixed design, its %s per point as the first stage, at %s confidence.",
			Plural(st.reps, "replicate"), conf)
	}
	v.Cost = costText(dec, st, conf, delta, v.Fixed)
	if dec.State == selection.Decided || dec.State == selection.Budget {
		v.Classes = classViews(dir, st, dec, rowsOf)
		for _, c := range v.Classes {
			if c.Cost != "" {
				v.Costs = append(v.Costs, c.Cost)
			}
		}
	}
	v.Split = splitText(dec)
	switch dec.State {
	case selection.Decided:
		headline = fmt.Sprintf("Selected: %s — %s %s, %s.", v.Selected, goal, describeMetric(metric), v.Value)
		among := Plural(k, "point")
		if subject != "" {
			among += " that satisfy " + subject
		}
		v.Guarantee = fmt.Sprintf("With %s confidence, the best of the %s when the best leads every other by at least %s (the indifference); a point closer than that to the best may be selected in its place.", conf, among, delta)
		for _, i := range dec.Equivalent {
			if i != dec.Best {
				v.Equivalent = append(v.Equivalent, label(i))
			}
		}
		if dec.Flat {
			v.Flat = true
			n := len(dec.Equivalent)
			which := fmt.Sprintf("the %d points", n)
			if n < k {
				which = fmt.Sprintf("the %d acceptable points (of %d: the others fail a constraint or a job)", n, k)
			}
			headline = fmt.Sprintf("Nothing else swept here matters at this indifference: %s are within %s of each other on %s; any of them will do (the selection names %s, %s).",
				which, spread(dec, metric), describeMetric(metric), v.Selected, v.Value)
		}
	case selection.Running:
		if v.Fixed {
			headline = fmt.Sprintf("This fixed design does not decide it: %s within reach of the best; a sequential selection would continue (`rocesweep run SPEC --select`).",
				map[bool]string{true: "1 point remains", false: fmt.Sprintf("%d points remain", len(v.Contenders))}[len(v.Contenders) == 1])
			v.Next = fmt.Sprintf("`rocesweep run SPEC --select -o DIR` runs %s per point first and then only the points still in contention, until one is within %s of the best with %s confidence.",
				Plural(question.DefaultInitial, "replicate"), delta, conf)
		} else {
			headline = "Not decided yet: " + v.Why
			v.Next = fmt.Sprintf("`%s` runs %s and decides again.", continueCmd(dir), needText(dec))
		}
	case selection.Budget:
		headline = "Not decided: " + v.Why
		maxJobs := 0
		if m.Select != nil {
			maxJobs = m.Select.WithDefaults(k).MaxJobs
		}
		v.Next = fmt.Sprintf("Raise select.max_jobs (now %d) in the spec and continue: `%s`. The best so far is not known to be within %s of the best.", maxJobs, continueCmd(dir), delta)
	case selection.Infeasible:
		headline = "No acceptable point: " + v.Why
		v.Selected = ""
		if subject != "" {
			v.Next = fmt.Sprintf("Every point left (table below): relax subject_to (%s) or sweep other values.", subject)
		} else {
			v.Next = "Every point left (table below): the failures say why."
		}
	}
	if dec.Front != nil && obj != nil && len(obj.Pareto) > 0 {
		paretoView(v, dec, obj, label)
		if dec.State == selection.Decided {
			headline = v.Guarantee
			v.Guarantee = ""
		}
	}
	if v.Selected != "" && dec.State != selection.Decided {
		v.BestSoFar = "Best so far: " + v.Selected + ", " + v.Value + "."
		v.Selected, v.Value = "", ""
	}
	if subject != "" && dec.Best >= 0 && dec.Best < len(dec.Feasible) && dec.State != selection.Infeasible {
		what := "the selected point"
		if dec.State != selection.Decided {
			what = "the best so far"
		}
		runs := 0
		if dec.Best < len(dec.Used) {
			runs = dec.Used[dec.Best]
		}
		switch dec.Feasible[dec.Best] {
		case 1:
			v.Feasibility = fmt.Sprintf("Known feasible: %s at %s, by sequential tests over its %s", subject, what, Plural(runs, "run"))
			if dec.Split.PerTest > 0 {
				v.Feasibility += fmt.Sprintf(" (a point that violates a plain condition in %s of runs or more, or misses a bound by more than its tolerance, passes them with probability at most %s per test)", percent(dec.Rare), percent(dec.Split.PerTest))
			}
			v.Feasibility += "."
		case 0:
			v.Feasibility = fmt.Sprintf("Not known feasible: %s of %s do not yet show that %s holds.", Plural(runs, "run"), what, subject)
		default:
			v.Feasibility = fmt.Sprintf("Infeasible: %s does not hold at %s.", subject, what)
		}
	}
	v.Few = strings.Contains(headline+v.BestSoFar, "†")
	return v, headline
}

// paretoView fills v for a Pareto objective's decision.
func paretoView(v *DecisionView, dec *selection.Decision, obj *question.Objective, label func(int) string) {
	var names []string
	for _, o := range obj.Pareto {
		v.FrontHead = append(v.FrontHead, fmt.Sprintf("%s (%s; indifference %s)", o.Metric, map[bool]string{true: "higher", false: "lower"}[o.Goal == question.Max]+" is better", amount(o.Metric, o.Indifference)))
		names = append(names, o.Metric)
	}
	for _, i := range dec.Front {
		row := FrontRow{Point: label(i)}
		for m, o := range obj.Pareto {
			row.Values = append(row.Values, amount(o.Metric, dec.ParetoMeans[m][i]))
		}
		v.Front = append(v.Front, row)
	}
	v.Selected, v.Value = "", ""
	v.Guarantee = fmt.Sprintf("Pareto front of %s: %s that no other point beats by more than the indifference on every metric, with %s confidence that it holds every Pareto-optimal point meeting the constraints.",
		strings.Join(names, " and "), Plural(len(dec.Front), "point"), ci.Num(100*dec.Confidence)+"%")
}

// needText counts the jobs a running selection waits for: the missing jobs of the stage
// it is at, and apart from them those it asked for ahead (selection: while nothing can
// change but a refusal, a round asks for several stages).
func needText(dec *selection.Decision) string {
	stage := dec.Stage + 1
	if dec.Stage == 0 {
		stage = max(dec.FirstStage, 1)
		for _, n := range dec.Need {
			if dec.FirstStage == 0 {
				stage = max(stage, n.Replicate+1) // the first stage: every job asked for
			}
		}
	}
	now := 0
	for _, n := range dec.Need {
		if n.Replicate < stage {
			now++
		}
	}
	s := "the " + Plural(now, "missing job") + " of this round"
	if ahead := len(dec.Need) - now; ahead > 0 {
		s += fmt.Sprintf(" and %d of the rounds after it (asked for ahead: nothing but a refusal can change before them)", ahead)
	}
	return s
}

// spread is the range of the equivalent points' means: "0.0003 µs (0.004%)".
func spread(dec *selection.Decision, metric string) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, i := range dec.Equivalent {
		if i < len(dec.Means) && !math.IsNaN(dec.Means[i]) {
			lo, hi = min(lo, dec.Means[i]), max(hi, dec.Means[i])
		}
	}
	if math.IsInf(lo, 0) {
		return "the indifference"
	}
	s := amount(metric, hi-lo)
	if ref := max(math.Abs(lo), math.Abs(hi)); ref > 0 {
		s += " (" + ci.Num(100*(hi-lo)/ref) + "%)"
	}
	return s
}

// splitText says how the confidence was divided (selection.Split) in one sentence; ""
// before the procedure has started.
func splitText(dec *selection.Decision) string {
	sp := dec.Split
	if sp.Screening == 0 && sp.Feasibility == 0 {
		return ""
	}
	var parts []string
	if sp.Feasibility > 0 {
		parts = append(parts, fmt.Sprintf("%s to feasibility (%s per test, %s per point)", percent(sp.Feasibility), percent(sp.PerTest), Plural(sp.Tests, "test")))
	}
	if sp.Screening > 0 {
		parts = append(parts, fmt.Sprintf("%s to screening", percent(sp.Screening)),
			fmt.Sprintf("%s to the rare-event rule (%s per pair: a pair with equal results, or a point whose results sit on one value, waits %s)", percent(sp.Rare), percent(sp.PerPair), Plural(dec.RareRunsPair, "replicate")))
	}
	return fmt.Sprintf("The %s error allowed is split: %s.", percent(1-dec.Confidence), strings.Join(parts, ", "))
}

// percent writes a share as a percent with at most four significant digits.
func percent(p float64) string { return ci.Num(100*p) + "%" }

// costText says what the selection spent, in jobs and simulation time (the jobs' summed
// wall_sec), against a fixed design of equal confidence (FixedJobs jobs at the mean
// wall_sec per job).
func costText(dec *selection.Decision, st *study, conf, delta string, fixed bool) string {
	if dec.Jobs == 0 {
		return ""
	}
	// Every job the study ran counts (once only the first stage's did): the rows of the
	// jobs table, ok or not, including those run ahead or after their point left.
	ran := st.jobs.Rows
	wall := st.jobs.Col("wall_sec")
	meanWall, total := math.NaN(), 0.0
	if wall != nil && !wall.IsString() {
		n := 0
		for r := range st.jobs.Rows {
			if !wall.Null[r] {
				total += wall.Num[r]
				n++
			}
		}
		if n > 0 {
			meanWall = total / float64(n)
		}
	}
	spent := Plural(ran, "job")
	if !math.IsNaN(meanWall) {
		spent += ", " + duration(total) + " of simulation time"
	}
	if extra := ran - dec.Jobs; extra > 0 && !fixed {
		spent += fmt.Sprintf(" (%s used by the procedure; %s ran ahead of it or after their point left)", Plural(dec.Jobs, "job"), Plural(extra, "job"))
	}
	if fixed {
		s := fmt.Sprintf("This design ran %s", spent)
		if dec.FixedJobs > 0 {
			s += fmt.Sprintf("; a fixed design that decides at %s confidence to within %s would need %s", conf, delta, Plural(dec.FixedJobs, "job"))
			if !math.IsNaN(meanWall) {
				s += " (about " + duration(float64(dec.FixedJobs)*meanWall) + ")"
			}
		}
		return s + "."
	}
	s := "Cost: " + spent
	if dec.FixedJobs > 0 {
		s += fmt.Sprintf(", against %s", Plural(dec.FixedJobs, "job"))
		if !math.IsNaN(meanWall) {
			s += " (about " + duration(float64(dec.FixedJobs)*meanWall) + ")"
		}
		s += fmt.Sprintf(" for a fixed design of equal confidence: %s%% of its jobs", ci.Num(math.Round(100*float64(ran)/float64(dec.FixedJobs))))
	}
	s += "."
	if !math.IsNaN(meanWall) {
		s += " Simulation time is the jobs' summed wall_sec: how long the simulator ran for each, added up; not the run's elapsed time (jobs run in parallel), nor simulated time. The fixed design's is its jobs × the mean wall_sec per job."
	}
	return s
}

// pivotLine is the closing table's last line for a decision: the selected point with its
// guarantee, or why nothing is selected and what to run next. Commands lose their
// backquotes.
func pivotLine(v *DecisionView, headline string) string {
	plain := func(s string) string { return strings.TrimSuffix(strings.ReplaceAll(s, "`", ""), ".") }
	if v.Conditions != nil {
		return conditionsPivot(v, headline)
	}
	if v.Flat {
		return lowerFirst(plain(headline))
	}
	if v.Front != nil {
		var pts []string
		for _, f := range v.Front {
			pts = append(pts, f.Point+" ("+strings.Join(f.Values, "; ")+")")
		}
		return lowerFirst(plain(headline)) + ": " + strings.Join(pts, "; ")
	}
	if v.State == string(selection.Decided) {
		line := "selected: " + v.Selected + ", " + v.Value + "; " + lowerFirst(plain(v.Guarantee))
		if v.Feasibility != "" {
			line += "; " + lowerFirst(plain(strings.SplitN(v.Feasibility, " (", 2)[0]))
		}
		for _, c := range v.Costs {
			line += "; the choice " + c
		}
		return line
	}
	line := lowerFirst(plain(headline))
	if v.BestSoFar != "" {
		line += "; " + lowerFirst(plain(v.BestSoFar))
	}
	if v.Next != "" && !v.Fixed {
		line += "; next: " + lowerFirst(plain(v.Next))
	}
	return line
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
