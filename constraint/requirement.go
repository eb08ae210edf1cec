package constraint

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kind is how a Requirement is judged over a point's replicates (statistics.md §3:
// what an acceptable point must satisfy).
type Kind int

const (
	// EveryRun is a plain condition (drops_lossless == 0): it must hold in every run.
	// No finite number of runs proves that; a selection accepts a point once it has held
	// in enough runs that a point violating it in a share `select.rare` of runs would
	// have shown a violation, and refuses it at the first violation.
	EveryRun Kind = iota
	// Probability bounds the share of runs in which a condition holds:
	// P(stuck_pause_ports > 0) <= 1%.
	Probability
	// Mean bounds the expectation of a number, with a tolerance:
	// mean(drops_lossy) <= 1000 ± 100.
	Mean
)

func (k Kind) String() string { return [...]string{"every run", "probability", "mean"}[k] }

// Requirement is one entry of an objective's subject_to.
type Requirement struct {
	Text string
	Kind Kind
	// Expr is the condition (EveryRun, Probability) or the number (Mean).
	Expr *Expr
	// Sense is the bound's comparison: LE, LT, GE or GT (Probability, Mean).
	Sense Sense
	// Bound is the probability as a fraction (Probability: 0.01 for 1%) or the mean's
	// bound c (Mean).
	Bound float64
	// Tolerance is the mean's ε > 0 (Mean): a point whose mean is inside the bound by ε
	// must be accepted, one outside it by ε refused; in between either answer is right.
	Tolerance float64
}

// ParseRequirement reads one subject_to entry: a condition (drops_lossless == 0), a
// probability bound P(condition) OP p with p a fraction or a percent (P(stuck_pause_ports
// > 0) <= 1%), or a mean bound mean(number) OP c ± ε, ε a number in c's unit or a
// percent of |c| (mean(drops_lossy) <= 1000 ± 100, mean(goodput_gbps_lossy) >= 1000 ±
// 5%); OP is <=, <, >= or >. Errors name the column of the problem.
func ParseRequirement(text string) (*Requirement, error) {
	s := strings.TrimSpace(text)
	kind, fn := EveryRun, ""
	switch {
	case strings.HasPrefix(s, "P(") || strings.HasPrefix(s, "P ("):
		kind, fn = Probability, "P"
	case strings.HasPrefix(s, "mean(") || strings.HasPrefix(s, "mean ("):
		kind, fn = Mean, "mean"
	}
	if kind == EveryRun {
		e, err := Parse(text)
		if err != nil {
			return nil, err
		}
		return &Requirement{Text: text, Kind: EveryRun, Expr: e}, nil
	}
	open := strings.IndexByte(s, '(')
	end := closing(s, open)
	col := func(i int) int { return strings.Index(text, s) + i + 1 }
	if end < 0 {
		return nil, fmt.Errorf("column %d of %q: %s( has no closing )", col(open), text, fn)
	}
	inner, err := Parse(s[open+1 : end])
	if err != nil {
		return nil, fmt.Errorf("inside %s(...) of %q: %w", fn, text, err)
	}
	r := &Requirement{Text: text, Kind: kind, Expr: inner}
	if kind == Probability && inner.Sense() == Holds && !isCondition(inner) {
		return nil, fmt.Errorf("%q: P(...) takes a condition, such as P(stuck_pause_ports > 0)", text)
	}
	if kind == Mean && isCondition(inner) {
		return nil, fmt.Errorf("%q: mean(...) takes a number, such as mean(drops_lossy); for the share of runs where a condition holds, write P(%s)", text, inner.Text)
	}
	rest := strings.TrimSpace(s[end+1:])
	var op string
	for _, o := range []string{"<=", ">=", "<", ">"} {
		if strings.HasPrefix(rest, o) {
			op = o
			break
		}
	}
	if op == "" {
		return nil, fmt.Errorf("%q: want <=, <, >= or > after %s(...), then a bound, as in %s", text, fn, example(kind))
	}
	r.Sense = senses[op]
	rest = strings.TrimSpace(rest[len(op):])
	bound, tol, hasTol := rest, "", false
	for _, pm := range []string{"±", "+-", "+/-"} {
		if i := strings.Index(rest, pm); i >= 0 {
			bound, tol, hasTol = strings.TrimSpace(rest[:i]), strings.TrimSpace(rest[i+len(pm):]), true
			break
		}
	}
	switch kind {
	case Probability:
		if hasTol {
			return nil, fmt.Errorf("%q: a probability bound takes no tolerance (its test accepts below half the bound and refuses above it)", text)
		}
		p, err := fraction(bound)
		if err != nil || p < 0 || p > 1 {
			return nil, fmt.Errorf("%q: the bound %q is not a probability: want a fraction from 0 to 1 or a percent (1%%)", text, bound)
		}
		r.Bound = p
	case Mean:
		c, err := parseLiteral(bound)
		if err != nil {
			return nil, fmt.Errorf("%q: the bound %q: %w", text, bound, err)
		}
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return nil, fmt.Errorf("%q: the bound %q is not a finite number", text, bound)
		}
		r.Bound = c
		if !hasTol {
			return nil, fmt.Errorf("%q: a mean bound needs its tolerance, the difference worth telling apart: %s ± 10%% or ± a number in its unit", text, strings.TrimSpace(s))
		}
		var eps float64
		if strings.HasSuffix(tol, "%") {
			pct, err := strconv.ParseFloat(strings.TrimSuffix(tol, "%"), 64)
			if err != nil {
				return nil, fmt.Errorf("%q: the tolerance %q is not a percent", text, tol)
			}
			eps = pct / 100 * math.Abs(c)
		} else if eps, err = parseLiteral(tol); err != nil {
			return nil, fmt.Errorf("%q: the tolerance %q: %w", text, tol, err)
		}
		if !(eps > 0) || math.IsInf(eps, 0) {
			return nil, fmt.Errorf("%q: the tolerance %q must be above 0 (a percent of a bound of 0 is 0: give a number)", text, tol)
		}
		r.Tolerance = eps
	}
	return r, nil
}

func example(k Kind) string {
	if k == Probability {
		return "P(stuck_pause_ports > 0) <= 1%"
	}
	return "mean(drops_lossy) <= 1000 ± 100"
}

// closing is the index of the parenthesis closing the one at open (-1 if none),
// skipping quoted strings.
func closing(s string, open int) int {
	depth := 0
	var quote byte
	for i := open; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// isCondition reports whether e is a condition (a comparison, a logical operation or a
// boolean), not a number.
func isCondition(e *Expr) bool {
	switch n := e.root.(type) {
	case binop:
		_, cmp := senses[n.op]
		return cmp || n.op == "==" || n.op == "!=" || n.op == "&&" || n.op == "||"
	case unary:
		return n.op == "!"
	case lit:
		_, ok := n.v.(bool)
		return ok
	}
	return false
}

// fraction reads 0.01 or 1%.
func fraction(s string) (float64, error) {
	if p, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		return f / 100, err
	}
	return strconv.ParseFloat(s, 64)
}

// Refs lists the names the requirement reads.
func (r *Requirement) Refs() []string { return r.Expr.Refs() }

// Observe is one run's value for the requirement, env resolving names (a null value
// as NaN): EveryRun 1 when the condition holds, 0 when not or when a name it reads is
// null; Probability 1 when the condition holds, 0 when not, NaN when a name is null;
// Mean the number, NaN when a name is null or it cannot be computed.
func (r *Requirement) Observe(env func(name string) (any, error)) float64 {
	null := false
	for _, name := range r.Refs() {
		v, err := env(name)
		if f, ok := v.(float64); err != nil || ok && math.IsNaN(f) {
			null = true
		}
	}
	switch r.Kind {
	case EveryRun, Probability:
		if null {
			if r.Kind == EveryRun {
				return 0
			}
			return math.NaN()
		}
		ok, err := r.Expr.Eval(env)
		switch {
		case err != nil && r.Kind == EveryRun:
			return 0
		case err != nil:
			return math.NaN()
		case ok:
			return 1
		}
		return 0
	}
	if null {
		return math.NaN()
	}
	v, err := r.Expr.root.eval(env)
	f, ok := v.(float64)
	if err != nil || !ok {
		return math.NaN()
	}
	return f
}
