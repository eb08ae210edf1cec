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

// ConditionsView is the combined answer of a study whose axes are settings and
// conditions (selection.ConditionsDecision) as the first screen tables it: with combine
// each, one row per condition and the setting selected there; with mean or worst, one
// row per setting (the selected first) with its mean at every condition, its combined
// value and where it stands.
type ConditionsView struct {
	Combine string
	Caption string
	Header  []string
	Rows    []ConditionsRow
}

// ConditionsRow is one row of the table; Selected marks the answer.
type ConditionsRow struct {
	Cells    []ConditionsCell
	Selected bool
}

// ConditionsCell is one cell: Num right-aligns it, Small sets it as a note.
type ConditionsCell struct {
	Text       string
	Num, Small bool
}

// conditionsView is decisionView for a decision with conditions (dec.Conditions).
func conditionsView(dec *selection.Decision, m *resultsdir.Manifest, st *study, dir string) (v *DecisionView, headline string) {
	cd := dec.Conditions
	obj := m.Objective
	metric, goal := "objective", "lowest"
	// near and nearGuarantee word a secondary objective (then): the settings it chooses
	// among, and what the confidence covers.
	var near, nearGuarantee string
	var subject string
	var weights []float64
	if obj != nil {
		metric, subject, weights = obj.Metric, strings.Join(obj.SubjectTo, " and "), obj.Weights
		if obj.Goal == question.Max {
			goal = "highest"
		}
		if t := obj.Then; t != nil {
			// Each condition selects on the secondary metric among its settings near the
			// best on the primary one.
			metric, goal = t.Metric, "lowest"
			if t.Goal == question.Max {
				goal = "highest"
			}
			primary, d1 := describeMetric(obj.Metric), obj.Indifference
			near = fmt.Sprintf(" among the settings within %s of the best %s", amount(obj.Metric, d1), primary)
			nearGuarantee = fmt.Sprintf("a setting within %s (the indifference and its tolerance, docs/statistics.md §9) of the best there on %s and, among the settings within %s of that best, the best on %s when it leads them by at least %%s",
				amount(obj.Metric, 1.5*d1), primary, amount(obj.Metric, d1/2), describeMetric(t.Metric))
		}
	}
	conf := ci.Num(100*dec.Confidence) + "%"
	alpha := percent(1 - dec.Confidence)
	mc := len(cd.Conditions)
	over := fmt.Sprintf("the %s of %s", Plural(mc, "condition"), conditionAxes(obj))
	delta := "the indifference"
	switch {
	case obj != nil && obj.Then != nil && obj.Then.Indifference > 0:
		delta = amount(metric, obj.Then.Indifference) // the selection is on then's metric
	case dec.Delta > 0:
		delta = amount(metric, dec.Delta)
	case obj != nil && obj.Then == nil && obj.Indifference > 0:
		delta = amount(metric, obj.Indifference)
	}
	val := func(x float64) string {
		if math.IsNaN(x) {
			return "-"
		}
		return amount(metric, x)
	}
	v = &DecisionView{State: string(dec.State), Fixed: m.Select == nil, Why: sentence(dec.Why)}
	cv := &ConditionsView{Combine: string(cd.Combine)}
	v.Conditions = cv
	v.Cost = costText(dec, st, conf, delta, v.Fixed)
	first, budget := "", ""
	if m.Select != nil {
		c := m.Select.WithDefaults(len(dec.Labels))
		first, budget = Plural(max(c.Initial, dec.FirstStage), "replicate"), Plural(c.MaxJobs, "job")
	} else {
		first = Plural(st.reps, "replicate")
	}
	if cd.Combine == question.CombineEach {
		cv.Caption = fmt.Sprintf("One decision per condition, each at %s confidence.", ci.Num(100*cd.ConfidenceEach)+"%")
		cv.Header = []string{"condition", "selected setting", describeMetric(metric), "replicates", "why"}
		var parts, flatParts []string
		same, setting, flat := true, -1, true
		for c, sub := range cd.PerCondition {
			row := ConditionsRow{Selected: sub.State == selection.Decided && sub.Best >= 0}
			sel, mean, reps := "-", "-", ""
			flat = flat && sub.Flat
			switch {
			case len(sub.Front) > 0:
				var front []string
				for _, i := range sub.Front {
					front = append(front, sub.Labels[i])
				}
				sel = "Pareto front: " + strings.Join(front, "; ")
				same = false
			case sub.Best >= 0:
				sel, mean, reps = sub.Labels[sub.Best], val(sub.Means[sub.Best]), fmt.Sprint(sub.Used[sub.Best])
				switch {
				case sub.State != selection.Decided:
					sel = "best so far: " + sel
				case sub.Flat:
					flatParts = append(flatParts, fmt.Sprintf("%s: %s of %d within %s of each other (the selection names %s, %s)",
						cd.Conditions[c], Plural(len(sub.Equivalent), "acceptable setting"), len(sub.Labels), spreadOf(&sub, metric), sel, val(sub.Means[sub.Best])))
					sel = fmt.Sprintf("any of the %d acceptable settings, within %s of each other (the selection names %s)", len(sub.Equivalent), spreadOf(&sub, metric), sel)
				case len(sub.Equivalent) > 1:
					sel += fmt.Sprintf(" (or any of %d more within the indifference)", len(sub.Equivalent)-1)
				}
				s := cd.SettingsAt[c][sub.Best]
				same = same && (setting < 0 || setting == s)
				setting = s
			case sub.State == selection.Infeasible:
				sel = "no acceptable setting"
				same = false
			}
			why := string(sub.State) + ": " + sub.Why
			row.Cells = []ConditionsCell{{Text: cd.Conditions[c]}, {Text: sel}, {Text: mean, Num: true}, {Text: reps, Num: true}, {Text: why, Small: true}}
			cv.Rows = append(cv.Rows, row)
			parts = append(parts, fmt.Sprintf("%s: %s (%s)", cd.Conditions[c], sel, mean))
		}
		// Every traffic class at each condition's selected setting, against the best any
		// setting achieved for it there (studies.md "Selecting the best point": trade-offs and flat studies).
		for c := range cd.PerCondition {
			sub := &cd.PerCondition[c]
			if sub.State != selection.Decided || sub.Best < 0 || len(sub.Front) > 0 {
				continue
			}
			rows := func(i int) []int {
				if i < 0 || i >= len(cd.SettingsAt[c]) {
					return nil
				}
				p := cd.Cell[cd.SettingsAt[c][i]][c]
				if p < 0 || p >= len(dec.Labels) || i >= len(sub.Used) {
					return nil
				}
				return st.usedRows(dec.Labels[p], sub.Used[i])
			}
			for _, cl := range classViews(dir, st, sub, rows) {
				cl.Class = cd.Conditions[c] + " · " + cl.Class
				if cl.Cost != "" {
					cl.Cost = "at " + cd.Conditions[c] + " " + cl.Cost
					v.Costs = append(v.Costs, cl.Cost)
				}
				v.Classes = append(v.Classes, cl)
			}
		}
		v.Procedure = fmt.Sprintf("One sequential selection per condition (Kim and Nelson's KN over the settings at that condition, the variances of paired differences updated every round; docs/statistics.md §13.1): %s per setting first, then one more replicate per setting still in contention; %s confidence for all %s together",
			first, conf, Plural(mc, "answer"))
		if budget != "" {
			v.Procedure += "; at most " + budget + " in all, shared in proportion to the settings at each condition"
		}
		v.Procedure += "."
		v.Split = fmt.Sprintf("The %s error allowed is split over the %s (Bonferroni): %s each, and within each condition between screening, the rare-event rule and feasibility as for one selection.",
			alpha, Plural(mc, "condition"), percent((1-dec.Confidence)/float64(mc)))
		pareto := obj != nil && len(obj.Pareto) > 0
		switch {
		case dec.State == selection.Decided && pareto:
			var names []string
			for _, o := range obj.Pareto {
				names = append(names, o.Metric)
			}
			var fronts []string
			for _, r := range cv.Rows {
				fronts = append(fronts, r.Cells[0].Text+": "+strings.TrimPrefix(r.Cells[1].Text, "Pareto front: "))
			}
			headline = fmt.Sprintf("The Pareto front of %s at each condition of %s: %s.", strings.Join(names, ", "), conditionAxes(obj), strings.Join(fronts, " | "))
			v.Guarantee = fmt.Sprintf("With %s confidence for all %s together, each identified as docs/statistics.md §10 says at %s confidence.", conf, Plural(mc, "front"), ci.Num(100*cd.ConfidenceEach)+"%")
		case dec.State == selection.Decided:
			if flat {
				v.Flat = true
				headline = fmt.Sprintf("At every condition of %s, no acceptable setting is better than another by the indifference (%s) on %s: %s.",
					conditionAxes(obj), delta, describeMetric(metric), strings.Join(flatParts, "; "))
			} else if same && setting >= 0 && mc > 1 {
				headline = fmt.Sprintf("Selected at every condition of %s: %s — %s %s%s (%s).", conditionAxes(obj), cd.Settings[setting], goal, describeMetric(metric), near, strings.Join(parts, "; "))
			} else {
				headline = fmt.Sprintf("Selected per condition of %s — %s %s%s: %s.", conditionAxes(obj), goal, describeMetric(metric), near, strings.Join(parts, "; "))
			}
			v.Guarantee = fmt.Sprintf("With %s confidence for all %s together: at each condition, the best setting there when it leads every other by at least %s (the indifference); a setting closer than that may be selected in its place.",
				conf, Plural(mc, "answer"), delta)
			if nearGuarantee != "" {
				v.Guarantee = fmt.Sprintf("With %s confidence for all %s together: at each condition, %s; a setting closer than that may be selected in its place.",
					conf, Plural(mc, "answer"), fmt.Sprintf(nearGuarantee, delta))
			}
		default:
			headline = conditionsPending(v, dec, dir, delta, conf)
		}
		return v, headline
	}

	// Mean and worst: a decision over the settings.
	o := cd.Over
	combined := "worst case"
	if cd.Combine == question.CombineMean {
		combined = "mean"
		if weights != nil {
			combined = "weighted mean"
		}
	}
	cv.Header = []string{"setting"}
	cv.Header = append(cv.Header, cd.Conditions...)
	cv.Header = append(cv.Header, combined, "replicates", "status")
	left := map[int]selection.Elimination{}
	for _, e := range o.Eliminated {
		left[e.Point] = e
	}
	cellsOf := func(s int) []string {
		var out []string
		for c := range cd.Conditions {
			out = append(out, cd.Conditions[c]+": "+val(cd.CellMeans[s][c]))
		}
		return out
	}
	combinedText := func(s int) string {
		t := val(o.Means[s])
		if cd.WorstAt != nil && cd.WorstAt[s] >= 0 && mc > 1 {
			t += " (" + cd.Conditions[cd.WorstAt[s]] + ")"
		}
		return t
	}
	for _, s := range cd.Order(goalOf(obj)) {
		row := ConditionsRow{Selected: s == o.Best && o.State == selection.Decided}
		row.Cells = append(row.Cells, ConditionsCell{Text: cd.Settings[s]})
		for c := range cd.Conditions {
			row.Cells = append(row.Cells, ConditionsCell{Text: val(cd.CellMeans[s][c]), Num: true})
		}
		status := "in contention"
		switch e, ok := left[s]; {
		case s == o.Best && o.State == selection.Decided:
			status = "selected"
		case s == o.Best:
			status = "best so far"
		case ok:
			status = fmt.Sprintf("eliminated in round %d: %s", e.Round, e.Reason)
		}
		row.Cells = append(row.Cells, ConditionsCell{Text: combinedText(s), Num: true}, ConditionsCell{Text: fmt.Sprint(o.Used[s]), Num: true}, ConditionsCell{Text: status, Small: true})
		cv.Rows = append(cv.Rows, row)
	}
	if cd.Combine == question.CombineMean {
		cv.Caption = fmt.Sprintf("Each setting's mean at every condition and its %s over them", combined)
		if weights != nil {
			cv.Caption += " (weights " + weightsText(cd.Weights) + ")"
		}
		cv.Caption += "; replicates per condition (a setting's replicate is one job at each condition)."
		v.Procedure = fmt.Sprintf("Sequential selection over the settings (Kim and Nelson's KN, the variances updated every round; docs/statistics.md §13.2) on each setting's %s over %s, replicate by replicate (replicate r of every condition shares its random numbers): %s per setting first, then one more per setting still in contention",
			combined, over, first)
	} else {
		cv.Caption = "Each setting's mean at every condition and its worst case (the condition where it is worst); replicates per condition."
		v.Procedure = fmt.Sprintf("Sequential robust selection (docs/statistics.md §13.3): KN's screening between the cells (setting, condition) of different settings, the variances of paired differences updated every round; a setting leaves when one of its cells is worse than every cell of another setting by more than the allowance; %s per setting and condition first, then one more per setting still in contention",
			first)
	}
	if budget != "" {
		v.Procedure += "; at most " + budget
	}
	v.Procedure += "."
	v.Split = splitText(dec)
	if cd.Combine == question.CombineWorst && cd.Pairs > 0 {
		v.Split += fmt.Sprintf(" Screening and the rare-event rule are spread over the %d cell pairs ((k − 1)·m: each other setting's worst cell against each cell of the best) that could eliminate the best setting.", cd.Pairs)
	}
	if subject != "" {
		v.Split += " Each constraint is tested at each condition."
	}
	b := o.Best
	what := map[bool]string{true: "lowest", false: "highest"}[goal == "lowest"]
	switch {
	case dec.State == selection.Decided && o.Flat:
		v.Flat = true
		headline = fmt.Sprintf("No acceptable setting is better than another by the indifference: the %s of %d are within %s of each other on the %s of %s over %s; any of them will do (the selection names %s, %s).",
			Plural(len(o.Equivalent), "acceptable setting"), len(cd.Settings), spreadOf(o, metric), combined, describeMetric(metric), over, cd.Settings[b], val(o.Means[b]))
	case dec.State == selection.Decided && b >= 0:
		v.Selected, v.Value = cd.Settings[b], val(o.Means[b])
		at := ""
		if cd.WorstAt != nil && cd.WorstAt[b] >= 0 && mc > 1 {
			at = " at " + cd.Conditions[cd.WorstAt[b]]
		}
		headline = fmt.Sprintf("Selected: %s — %s %s of %s over %s, %s%s (per condition: %s).", cd.Settings[b], what, combined, describeMetric(metric), over, val(o.Means[b]), at, strings.Join(cellsOf(b), "; "))
		if cd.Combine == question.CombineMean {
			v.Guarantee = fmt.Sprintf("With %s confidence, the setting with the best %s over %s when it leads every other by at least %s (the indifference); a setting closer than that may be selected in its place.",
				conf, combined, over, delta)
		} else {
			v.Guarantee = fmt.Sprintf("With %s confidence, the setting whose worst condition is best, when its worst case leads every other setting's by at least %s (the indifference); a setting closer than that may be selected in its place.",
				conf, delta)
		}
		for _, s := range o.Equivalent {
			if s != b {
				v.Equivalent = append(v.Equivalent, cd.Settings[s])
			}
		}
	default:
		if b >= 0 {
			v.BestSoFar = fmt.Sprintf("Best so far: %s, %s %s (%s).", cd.Settings[b], combined, combinedText(b), strings.Join(cellsOf(b), "; "))
		}
		headline = conditionsPending(v, dec, dir, delta, conf)
	}
	if subject != "" && b >= 0 && dec.State != selection.Infeasible {
		switch o.Feasible[b] {
		case 1:
			v.Feasibility = fmt.Sprintf("Known feasible at every condition: %s at the %s, by sequential tests at each condition over its %s.", subject,
				map[bool]string{true: "selected setting", false: "best so far"}[dec.State == selection.Decided], Plural(o.Used[b], "run"))
		case 0:
			v.Feasibility = fmt.Sprintf("Not known feasible: %s do not yet show that %s holds at every condition.", Plural(o.Used[b], "run"), subject)
		}
	}
	return v, headline
}

// conditionsPending words a decision that is not made (running, budget, infeasible):
// the headline, and the next step in v.
func conditionsPending(v *DecisionView, dec *selection.Decision, dir, delta, conf string) string {
	switch dec.State {
	case selection.Running:
		if v.Fixed {
			v.Next = fmt.Sprintf("`rocesweep run SPEC --select -o DIR` runs a sequential selection, until the answer is within %s of the best with %s confidence.", delta, conf)
			return "This fixed design does not decide it: " + v.Why
		}
		v.Next = fmt.Sprintf("`%s` runs the %s it needs next and decides again.", continueCmd(dir), Plural(len(dec.Need), "job"))
		return "Not decided yet: " + v.Why
	case selection.Budget:
		v.Next = fmt.Sprintf("Raise select.max_jobs in the spec and continue: `%s`.", continueCmd(dir))
		return "Not decided: " + v.Why
	}
	v.Next = "Every setting left: relax subject_to or sweep other values; the table says why each left."
	return "No acceptable setting: " + v.Why
}

// conditionAxes names the condition axes by their short names: "senders", "senders ×
// load".
func conditionAxes(obj *question.Objective) string {
	if obj == nil || len(obj.Conditions) == 0 {
		return "the conditions"
	}
	var names []string
	for _, c := range obj.Conditions {
		p := resultsdir.PathOf(c)
		names = append(names, p[strings.LastIndex(p, ".")+1:])
	}
	return strings.Join(names, " × ")
}

func goalOf(obj *question.Objective) question.Goal {
	if obj == nil {
		return question.Min
	}
	return obj.Goal
}

// weightsText writes normalised weights as percents: "25%:75%".
func weightsText(w []float64) string {
	var parts []string
	for _, x := range w {
		parts = append(parts, ci.Num(100*x)+"%")
	}
	return strings.Join(parts, " : ")
}

// spreadOf is the range of the equivalent settings' combined values.
func spreadOf(o *selection.Decision, metric string) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range o.Equivalent {
		if x := o.Means[s]; !math.IsNaN(x) {
			lo, hi = min(lo, x), max(hi, x)
		}
	}
	if math.IsInf(lo, 0) {
		return "the indifference"
	}
	return amount(metric, hi-lo)
}

// conditionsPivot is the closing table's last lines for a decision with conditions: the
// headline, then one line per table row.
func conditionsPivot(v *DecisionView, headline string) string {
	plain := func(s string) string { return strings.TrimSuffix(strings.ReplaceAll(s, "`", ""), ".") }
	lines := []string{lowerFirst(plain(headline))}
	if v.Guarantee != "" {
		lines = append(lines, lowerFirst(plain(v.Guarantee)))
	}
	cv := v.Conditions
	for _, r := range cv.Rows {
		var parts []string
		for k, c := range r.Cells {
			if c.Text == "" || c.Small && (c.Text == "in contention" || c.Text == "selected" || v.Conditions.Combine == string(question.CombineEach)) {
				continue
			}
			if k > 0 && k < len(cv.Header) {
				parts = append(parts, cv.Header[k]+" "+c.Text)
			} else {
				parts = append(parts, c.Text)
			}
		}
		mark := "  "
		if r.Selected {
			mark = "* "
		}
		lines = append(lines, mark+strings.Join(parts, "; "))
	}
	if v.Next != "" && !v.Fixed {
		lines = append(lines, "next: "+lowerFirst(plain(v.Next)))
	}
	return strings.Join(lines, "\n  ")
}

// combineText is ObjectiveText's words for the conditions: "; over the conditions of
// senders: the setting whose worst condition is best (combine: worst)"; "" without.
func combineText(o *question.Objective) string {
	if len(o.Conditions) == 0 {
		return ""
	}
	s := "; settings compared over the conditions of " + conditionAxes(o) + ": "
	switch o.Combine {
	case question.CombineMean:
		s += "the best mean over them"
		if o.Weights != nil {
			var w []string
			for _, x := range o.Weights {
				w = append(w, ci.Num(x))
			}
			s += " (weights " + strings.Join(w, " : ") + ")"
		}
	case question.CombineWorst:
		s += "the setting whose worst condition is best"
	default:
		s += "one answer per condition"
	}
	return s + " (combine: " + string(o.Combine) + ")"
}
