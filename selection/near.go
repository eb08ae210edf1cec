package selection

import (
	"fmt"
	"math"

	"github.com/rocesweep/rocesweep/question"
)

// A selection on a secondary objective (objective.then, docs/statistics.md §9): among
// the points within the indifference δ₁ of the best on the primary metric, the best on
// the secondary one. It runs in two phases over the same replicates:
//
//  1. Nearness: for every ordered pair (i, l) of survivors, a mean bound on the paired
//     differences of the primary, D = y₁(i) − y₁(l) (smaller is better): E[D] <= δ₁ with
//     tolerance τ (Near.Tolerance, default δ₁/2), judged as Batur and Kim's mean bounds
//     are (feasibility.go), one feasibility test per pair in the confidence split. A
//     point is near once every pair with the other survivors accepts it, and leaves as
//     far when one pair refuses it: some point is better by more than δ₁ (by at least
//     δ₁ + τ it is refused with probability at least 1 − β; by δ₁ − τ or less it is
//     accepted). No secondary screening happens before every survivor is near or has
//     left, so the best point on the primary never leaves before it has served as the
//     reference (it cannot be far: nothing is better than it).
//  2. KN on the secondary among the near points, as for a plain objective.
//
// The decision's guarantee is then for the pair: with the confidence, the selected point
// is within δ₁ + τ of the best on the primary, and the best on the secondary among the
// points within δ₁ − τ when it leads them by δ₂.

// nearStage judges the open pairs at the stage (from the end of the first stage on) and
// makes the far points leave.
func (r *replay) nearStage(stage int) {
	if r.p.Near == nil || !r.started {
		return
	}
	beta := r.d.Split.PerTest
	d1 := r.p.Near.Delta
	tau := r.nearTolerance()
	var far []int
	var why []string
	for _, i := range r.alive {
		if r.nearState[i] != 0 {
			continue
		}
		accepted := true
		for _, l := range r.alive {
			if l == i {
				continue
			}
			dec := &r.nearDec[i][l]
			if *dec == 0 {
				ps := r.nearPair(i, l)
				n := float64(ps.n)
				if ps.allEqual && ps.n < r.d.RareRunsOK {
					accepted = false
					continue
				}
				// Σ D for i − l: the stored pair is the lower index minus the higher.
				sum := n*ps.shift + ps.s1
				if i > l {
					sum = -sum
				}
				sum -= n * d1
				bound := max(0, hSquared(beta, ps.n)*ps.variance()/(2*tau)-tau*n/2)
				switch {
				case sum <= -bound:
					*dec = 1
				case sum >= bound:
					*dec = -1
				}
			}
			switch *dec {
			case -1:
				r.nearState[i] = -1
				gap := (r.nearSum[i] - r.nearSum[l]) / float64(r.used[i])
				far = append(far, i)
				why = append(why, fmt.Sprintf("far from the best on %s: %s worse than %s on %d paired replicates, beyond the indifference (%s)",
					r.p.Near.Metric, num(gap), r.name(l), stage, num(d1)))
			case 0:
				accepted = false
			}
			if r.nearState[i] == -1 {
				break
			}
		}
		if r.nearState[i] == 0 && accepted {
			r.nearState[i] = 1
		}
	}
	for a, i := range far {
		r.leave(i, stage, CauseFar, why[a], -1, 0)
	}
}

func (r *replay) nearTolerance() float64 {
	if t := r.p.Near.Tolerance; t > 0 {
		return t
	}
	return r.p.Near.Delta / 2
}

// nearDone reports whether every survivor is known near (phase 2 may screen).
func (r *replay) nearDone() bool {
	if r.p.Near == nil {
		return true
	}
	for _, i := range r.alive {
		if r.nearState[i] != 1 {
			return false
		}
	}
	return true
}

// near reports whether point i is known to be near the best on the primary (always,
// without Near).
func (r *replay) near(i int) bool { return r.p.Near == nil || r.nearState[i] == 1 }

// nearPair is the primary's paired differences of i and l (lower index minus higher).
func (r *replay) nearPair(i, l int) *pairStat {
	if i > l {
		i, l = l, i
	}
	return &r.nearPairs[i][l]
}

// nearY is the primary's value of point i in replicate j, smaller better.
func (r *replay) nearY(i, j int) float64 {
	y := r.obs(i, j).Near
	if r.p.Near.Goal == question.Max {
		y = -y
	}
	return y
}

// takeNear adds replicate j of the survivors to the primary's sums and pairs.
func (r *replay) takeNear(j int) {
	if r.p.Near == nil {
		return
	}
	for a, i := range r.alive {
		r.nearSum[i] += r.nearY(i, j)
		for _, l := range r.alive[a+1:] {
			r.nearPair(i, l).add(r.nearY(i, j) - r.nearY(l, j))
		}
	}
}

func (r *replay) initNear() {
	if r.p.Near == nil {
		return
	}
	r.nearPairs = make([][]pairStat, r.k)
	r.nearDec = make([][]int8, r.k)
	for i := range r.k {
		r.nearPairs[i] = make([]pairStat, r.k)
		r.nearDec[i] = make([]int8, r.k)
	}
	r.nearState = make([]int, r.k)
	r.nearSum = make([]float64, r.k)
	r.d.Near = r.nearState
}

func validNear(n *Near) error {
	if n == nil {
		return nil
	}
	if n.Goal != question.Min && n.Goal != question.Max {
		return fmt.Errorf("primary goal %q is neither %q nor %q", n.Goal, question.Min, question.Max)
	}
	if !(n.Delta > 0) || math.IsInf(n.Delta, 0) || n.Tolerance < 0 || math.IsInf(n.Tolerance, 0) || n.Tolerance > n.Delta {
		return fmt.Errorf("primary indifference %g and tolerance %g: want an indifference above 0 and a tolerance from 0 to it", n.Delta, n.Tolerance)
	}
	return nil
}
