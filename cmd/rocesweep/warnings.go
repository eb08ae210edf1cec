package main

import (
	"regexp"
	"sort"
	"strings"

	"github.com/rocesweep/rocesweep/model/explain"
	"github.com/rocesweep/rocesweep/sweep"
)

// pointWarning is one distinct warning (explain.Warnings) of a plan's valid points: its
// first example, how many points give it and in how many variants.
type pointWarning struct {
	Example  string
	Points   int
	Variants int
}

// pointWarnings groups the warnings of the plan's valid points. A grid makes one message
// per value it sweeps ("Xoff 100,000", "Xoff 300,000"): messages alike but for their
// numbers (warningShape) are one warning, shown by its first example. Sorted by example.
func pointWarnings(p *sweep.Plan) []pointWarning {
	type group struct {
		example  string
		points   int
		messages map[string]bool
	}
	groups := map[string]*group{}
	last := -1
	for _, j := range p.Jobs {
		if j.Invalid != nil || j.Point == last {
			continue
		}
		last = j.Point
		seen := map[string]bool{}
		for _, msg := range explain.Messages(explain.Warnings(&j.Config)) {
			k := warningShape(msg)
			g := groups[k]
			if g == nil {
				g = &group{example: msg, messages: map[string]bool{}}
				groups[k] = g
			}
			if !seen[k] {
				seen[k] = true
				g.points++
			}
			g.messages[msg] = true
			g.example = min(g.example, msg)
		}
	}
	out := make([]pointWarning, 0, len(groups))
	for _, g := range groups {
		out = append(out, pointWarning{Example: g.example, Points: g.points, Variants: len(g.messages)})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Example < out[b].Example })
	return out
}

// warningShape is a warning with its quantities blanked (numbers of 3 or more digits,
// with a comma or a decimal point; not pool and TC numbers or § sections): the key that
// groups the messages one warning gives at different points of a grid.
func warningShape(msg string) string {
	return numberRE.ReplaceAllStringFunc(msg, func(n string) string {
		if strings.HasPrefix(n, "§") || len(strings.TrimRight(n, ".,")) < 3 {
			return n
		}
		return "#"
	})
}

var numberRE = regexp.MustCompile(`§?[0-9][0-9.,]*`)
