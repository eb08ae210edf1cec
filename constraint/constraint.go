// Package constraint is the small expression language of a sweep spec's
// `sweep.constraint` (which grid points run) and `objective.subject_to` (which results
// are acceptable): comparisons, arithmetic and logic over named values. It knows no
// attribute or column: the caller's env resolves names. It has no state.
package constraint

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/rocesweep/rocesweep/model/config"
)

// picosPerSecond converts config.ParseTime's sim.Time (integer picoseconds) to seconds,
// the base unit a literal such as "2us" is compared in. It is sim.Second, restated so
// that this expression language does not import the simulator's core for one constant;
// TestPicosPerSecondIsSimSecond keeps the two equal.
const picosPerSecond = 1e12

// Expr is a boolean expression, e.g. a constraint that keeps a grid point (design.md
// "Sweep spec"):
//
//	switch.StaticPoolXonThreshold < switch.StaticPoolXoffThreshold
//	switch.LossyAlpha * 2 <= 4 && topology.hosts >= 8
//	switch.StaticPoolXoffThreshold >= 300KB || switch.LossyAlpha == 0
//
// In a sweep constraint, names are attribute paths (any form config.Canonical accepts,
// swept or not) and read the point's resolved, typed values (bytes as numbers of bytes,
// rates in bit/s, times in seconds); in an objective's subject_to they are jobs columns
// in their own units (drops_lossless, fct_p99_usec_lossless in µs). Number literals may carry the spec's units (700KB, 400Gbps, 500ns),
// which convert to the same base units. Operators, loosest first: || (or), && (and),
// ! (not), == != < <= > >=, + -, * /, unary -. Strings are quoted; true and false are
// booleans.
type Expr struct {
	Text string
	Pos  string
	root node
}

type node interface {
	eval(env func(string) (any, error)) (any, error)
}

type (
	lit   struct{ v any }
	ref   struct{ path string }
	unary struct {
		op string
		x  node
	}
	binop struct {
		op   string
		x, y node
	}
)

// Limits of an expression: its text in bytes, and the nesting of parentheses, `!` and
// unary `-`. The parser and the evaluator recurse once per level, so an unbounded
// expression could overflow the stack.
const (
	MaxLen   = 10_000
	MaxDepth = 100
)

// Parse parses an expression; errors name the column of the problem.
func Parse(text string) (*Expr, error) {
	if len(text) > MaxLen {
		return nil, fmt.Errorf("the expression is %s bytes long; at most %s", config.Commas(int64(len(text))), config.Commas(MaxLen))
	}
	p := &parser{src: text}
	p.next()
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.tok != "" {
		return nil, fmt.Errorf("unexpected %q at column %d of %q", p.tok, p.tokPos+1, text)
	}
	return &Expr{Text: text, root: n}, nil
}

// Refs lists the attribute paths the expression reads, in order of appearance.
func (c *Expr) Refs() []string {
	var out []string
	var walk func(n node)
	walk = func(n node) {
		switch n := n.(type) {
		case ref:
			out = append(out, n.path)
		case unary:
			walk(n.x)
		case binop:
			walk(n.x)
			walk(n.y)
		}
	}
	walk(c.root)
	return out
}

// Eval evaluates the constraint with env resolving attribute paths to typed values.
func (c *Expr) Eval(env func(path string) (any, error)) (bool, error) {
	v, err := c.root.eval(env)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("%q is %v, not true or false", c.Text, v)
	}
	return b, nil
}

func (n lit) eval(func(string) (any, error)) (any, error) { return n.v, nil }

func (n ref) eval(env func(string) (any, error)) (any, error) {
	v, err := env(n.path)
	if err != nil {
		return nil, err
	}
	if i, ok := v.(int64); ok {
		return float64(i), nil
	}
	return v, nil
}

func (n unary) eval(env func(string) (any, error)) (any, error) {
	x, err := n.x.eval(env)
	if err != nil {
		return nil, err
	}
	switch n.op {
	case "!":
		if b, ok := x.(bool); ok {
			return !b, nil
		}
	case "-":
		if f, ok := x.(float64); ok {
			return -f, nil
		}
	}
	return nil, fmt.Errorf("%s applied to %v", n.op, x)
}

func (n binop) eval(env func(string) (any, error)) (any, error) {
	x, err := n.x.eval(env)
	if err != nil {
		return nil, err
	}
	// Short-circuit the logical operators.
	if n.op == "&&" || n.op == "||" {
		bx, ok := x.(bool)
		if !ok {
			return nil, fmt.Errorf("%s applied to %v", n.op, x)
		}
		if bx == (n.op == "||") {
			return bx, nil
		}
		y, err := n.y.eval(env)
		if err != nil {
			return nil, err
		}
		by, ok := y.(bool)
		if !ok {
			return nil, fmt.Errorf("%s applied to %v", n.op, y)
		}
		return by, nil
	}
	y, err := n.y.eval(env)
	if err != nil {
		return nil, err
	}
	switch n.op {
	case "==":
		return x == y, nil
	case "!=":
		return x != y, nil
	}
	fx, okx := x.(float64)
	fy, oky := y.(float64)
	if !okx || !oky {
		sx, okx := x.(string)
		sy, oky := y.(string)
		if okx && oky {
			switch n.op {
			case "<":
				return sx < sy, nil
			case "<=":
				return sx <= sy, nil
			case ">":
				return sx > sy, nil
			case ">=":
				return sx >= sy, nil
			}
		}
		return nil, fmt.Errorf("%v %s %v: want numbers", x, n.op, y)
	}
	switch n.op {
	case "<":
		return fx < fy, nil
	case "<=":
		return fx <= fy, nil
	case ">":
		return fx > fy, nil
	case ">=":
		return fx >= fy, nil
	case "+":
		return fx + fy, nil
	case "-":
		return fx - fy, nil
	case "*":
		return fx * fy, nil
	case "/":
		if fy == 0 {
			// x / 0 is not a number: refuse it rather than compare an infinity (a
			// constraint "a / 0 > 1" once held silently at every point).
			return nil, fmt.Errorf("%v / %v: division by zero", x, y)
		}
		return fx / fy, nil
	}
	return nil, fmt.Errorf("unknown operator %s", n.op)
}

// parser is a recursive-descent parser over a one-token lookahead.
type parser struct {
	src    string
	off    int
	tok    string // "" at the end
	tokPos int
	kind   byte // 'n' number, 'i' identifier, 's' string, 'o' operator
	depth  int  // nesting of (, ! and unary -: at most MaxDepth
}

// nest enters one level of nesting; the caller defers the returned function.
func (p *parser) nest() error {
	if p.depth++; p.depth > MaxDepth {
		return p.errf("nested more than %d levels deep", MaxDepth)
	}
	return nil
}

func (p *parser) next() {
	for p.off < len(p.src) && unicode.IsSpace(rune(p.src[p.off])) {
		p.off++
	}
	p.tokPos = p.off
	if p.off >= len(p.src) {
		p.tok = ""
		return
	}
	c := p.src[p.off]
	start := p.off
	switch {
	case c >= '0' && c <= '9' || c == '.':
		p.kind = 'n'
		for p.off < len(p.src) {
			c := p.src[p.off]
			if c >= '0' && c <= '9' || c == '.' || isLetter(c) ||
				(c == '+' || c == '-') && (p.src[p.off-1] == 'e' || p.src[p.off-1] == 'E') && !strings.ContainsAny(p.src[start:p.off], "BbKkMGTpnums") {
				p.off++
				continue
			}
			break
		}
	case isLetter(c):
		p.kind = 'i'
		for p.off < len(p.src) && (isLetter(p.src[p.off]) || p.src[p.off] >= '0' && p.src[p.off] <= '9' || p.src[p.off] == '.') {
			p.off++
		}
	case c == '"' || c == '\'':
		p.kind = 's'
		p.off++
		for p.off < len(p.src) && p.src[p.off] != c {
			p.off++
		}
		p.off++
	default:
		p.kind = 'o'
		two := ""
		if p.off+1 < len(p.src) {
			two = p.src[p.off : p.off+2]
		}
		switch two {
		case "&&", "||", "==", "!=", "<=", ">=":
			p.off += 2
		default:
			p.off++
		}
	}
	p.tok = p.src[start:min(p.off, len(p.src))]
	switch p.tok {
	case "and":
		p.tok, p.kind = "&&", 'o'
	case "or":
		p.tok, p.kind = "||", 'o'
	case "not":
		p.tok, p.kind = "!", 'o'
	}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }

func (p *parser) errf(format string, args ...any) error {
	return fmt.Errorf("column %d of %q: %s", p.tokPos+1, p.src, fmt.Sprintf(format, args...))
}

func (p *parser) binaryLevel(ops []string, sub func() (node, error)) (node, error) {
	x, err := sub()
	if err != nil {
		return nil, err
	}
	for p.kind == 'o' && contains(ops, p.tok) {
		op := p.tok
		p.next()
		y, err := sub()
		if err != nil {
			return nil, err
		}
		x = binop{op, x, y}
	}
	return x, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (p *parser) or() (node, error)  { return p.binaryLevel([]string{"||"}, p.and) }
func (p *parser) and() (node, error) { return p.binaryLevel([]string{"&&"}, p.not) }

func (p *parser) not() (node, error) {
	if p.kind == 'o' && p.tok == "!" {
		if err := p.nest(); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		p.next()
		x, err := p.not()
		return unary{"!", x}, err
	}
	x, err := p.sum()
	if err != nil {
		return nil, err
	}
	if p.kind == 'o' && contains([]string{"==", "!=", "<", "<=", ">", ">="}, p.tok) {
		op := p.tok
		p.next()
		y, err := p.sum()
		if err != nil {
			return nil, err
		}
		return binop{op, x, y}, nil
	}
	return x, nil
}

func (p *parser) sum() (node, error)  { return p.binaryLevel([]string{"+", "-"}, p.prod) }
func (p *parser) prod() (node, error) { return p.binaryLevel([]string{"*", "/"}, p.neg) }

func (p *parser) neg() (node, error) {
	if p.kind == 'o' && p.tok == "-" {
		if err := p.nest(); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		p.next()
		x, err := p.neg()
		return unary{"-", x}, err
	}
	return p.primary()
}

func (p *parser) primary() (node, error) {
	tok, kind := p.tok, p.kind
	switch {
	case tok == "":
		return nil, p.errf("expression ends early")
	case kind == 'o' && tok == "(":
		if err := p.nest(); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		p.next()
		x, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.tok != ")" {
			return nil, p.errf("want )")
		}
		p.next()
		return x, nil
	case kind == 'n':
		v, err := parseLiteral(tok)
		if err != nil {
			return nil, p.errf("%v", err)
		}
		p.next()
		return lit{v}, nil
	case kind == 's':
		if len(tok) < 2 || tok[len(tok)-1] != tok[0] {
			return nil, p.errf("unterminated string")
		}
		p.next()
		return lit{tok[1 : len(tok)-1]}, nil
	case kind == 'i':
		p.next()
		switch tok {
		case "true":
			return lit{true}, nil
		case "false":
			return lit{false}, nil
		}
		return ref{tok}, nil
	}
	return nil, p.errf("unexpected %q", tok)
}

// ParseNumber reads a number, with a unit converted to base units (B, bit/s, s): the
// literals of the language (700KB, 400Gbps, 500ns, 1e-3).
func ParseNumber(tok string) (float64, error) { return parseLiteral(tok) }

// parseLiteral reads a number, with a unit converted to base units (B, bit/s, s).
func parseLiteral(tok string) (float64, error) {
	if f, err := strconv.ParseFloat(tok, 64); err == nil {
		return f, nil
	}
	if b, err := config.ParseBytes(tok); err == nil {
		return float64(b), nil
	}
	if r, err := config.ParseRate(tok); err == nil {
		return float64(r), nil
	}
	if t, err := config.ParseTime(tok, false); err == nil {
		return float64(t) / picosPerSecond, nil
	}
	return 0, fmt.Errorf("%q is not a number with a known unit (B, KB, KiB, MB, MiB, Gbps, Mbps, ps, ns, us, ms, s)", tok)
}

// Sense is how a margin (see Margin) must compare with zero for the expression to hold.
type Sense int

const (
	// Holds: the expression is not one comparison of numbers; the margin is 1 when it
	// holds and 0 when not.
	Holds Sense = iota
	LE          // x <= y: margin x − y <= 0
	LT          // x < y
	GE          // x >= y
	GT          // x > y
	EQ          // x == y: margin 0
	NE          // x != y
)

// String is the operator of a comparison ("holds" for other expressions).
func (s Sense) String() string {
	return [...]string{"holds", "<=", "<", ">=", ">", "==", "!="}[s]
}

// Margin evaluates the expression as a distance from its boundary: for one comparison
// at the top (drops_lossless == 0, fct_p99_usec_lossless <= 150) it returns x − y and
// the comparison's Sense, so that a caller can put an interval around the margin over
// several samples (a comparison of non-numbers is an error); for any other expression,
// 1 or 0 (holds or not) and Holds.
func (c *Expr) Margin(env func(name string) (any, error)) (float64, Sense, error) {
	if b, ok := c.root.(binop); ok {
		sense, cmp := senses[b.op]
		if cmp {
			x, err := b.x.eval(env)
			if err != nil {
				return 0, 0, err
			}
			y, err := b.y.eval(env)
			if err != nil {
				return 0, 0, err
			}
			fx, okx := x.(float64)
			fy, oky := y.(float64)
			if !okx || !oky {
				return 0, 0, fmt.Errorf("%q compares %v with %v: a margin needs numbers", c.Text, x, y)
			}
			return fx - fy, sense, nil
		}
	}
	ok, err := c.Eval(env)
	if err != nil {
		return 0, 0, err
	}
	if ok {
		return 1, Holds, nil
	}
	return 0, Holds, nil
}

// Sense is the Sense of the expression's margin: the comparison at its top, or Holds
// when it is not one comparison (Margin then gives 1 or 0).
func (c *Expr) Sense() Sense {
	if b, ok := c.root.(binop); ok {
		if s, cmp := senses[b.op]; cmp {
			return s
		}
	}
	return Holds
}

var senses = map[string]Sense{"<=": LE, "<": LT, ">=": GE, ">": GT, "==": EQ, "!=": NE}
