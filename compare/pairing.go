package compare

import (
	"fmt"
	"slices"

	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
	"github.com/rocesweep/rocesweep/selection/ci"
)

// Pairing is how the rows of the two jobs tables pair up: by job_id (the same
// configuration: a regression check) or by params (the same swept values and replicate:
// an A/B of a change outside the grid, whose job ids differ).
type Pairing string

const (
	PairByJob    Pairing = "job_id"
	PairByParams Pairing = "params"
)

// unit is one thing compared: a job (PairByJob) or a grid point (PairByParams), with the rows
// of base and new that pair, replicate by replicate, both ok.
type unit struct {
	label        string
	bRows, nRows []int
}

// paired is what a pairing matched.
type paired struct {
	units    []unit
	common   int // jobs (PairByJob) or points (PairByParams) on both sides
	jobs     int // ByParams: (point, replicate) pairs on both sides
	onlyBase []string
	onlyNew  []string
	status   []StatusChange
}

// pair matches the rows of base and nw by p; axes are the swept columns (ByParams only).
// Jobs (PairByJob) go in job_id order; points (PairByParams) in resultsdir.Points order, and a
// job's name is "point replicate=r".
func pair(base, nw *resultsdir.Table, p Pairing, axes []string) (*paired, error) {
	if p == PairByParams {
		return pairByParams(base, nw, axes), nil
	}
	return pairByJob(base, nw)
}

func pairByJob(base, nw *resultsdir.Table) (*paired, error) {
	bIdx, err := index(base)
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	nIdx, err := index(nw)
	if err != nil {
		return nil, fmt.Errorf("new: %w", err)
	}
	out := &paired{onlyBase: []string{}, onlyNew: []string{}, status: []StatusChange{}}
	ids := jobIDs(base)
	for _, id := range ids {
		if _, ok := nIdx[id]; !ok {
			out.onlyBase = append(out.onlyBase, id)
		}
	}
	for _, id := range jobIDs(nw) {
		if _, ok := bIdx[id]; !ok {
			out.onlyNew = append(out.onlyNew, id)
		}
	}
	for _, id := range ids {
		n, ok := nIdx[id]
		if !ok {
			continue
		}
		out.common++
		b := bIdx[id]
		bs, ns := status(base, b), status(nw, n)
		if bs != ns {
			out.status = append(out.status, StatusChange{JobID: id, Base: bs, New: ns, Error: text(nw, "error", n)})
			continue
		}
		if bs == "" || bs == string(journal.StatusOK) {
			out.units = append(out.units, unit{label: id, bRows: []int{b}, nRows: []int{n}})
		}
	}
	return out, nil
}

func pairByParams(base, nw *resultsdir.Table, axes []string) *paired {
	out := &paired{onlyBase: []string{}, onlyNew: []string{}, status: []StatusChange{}}
	bp, np := resultsdir.Points(base, axes, nil), resultsdir.Points(nw, axes, nil)
	nByKey := map[string]*resultsdir.Point{}
	for _, p := range np {
		nByKey[p.Key] = p
	}
	bByKey := map[string]*resultsdir.Point{}
	for _, p := range bp {
		bByKey[p.Key] = p
	}
	for _, p := range np {
		if bByKey[p.Key] == nil {
			for _, rep := range p.Reps {
				out.onlyNew = append(out.onlyNew, fmt.Sprintf("%s replicate=%d", pointLabel(nw, axes, p), rep))
			}
		}
	}
	for _, b := range bp {
		label := pointLabel(base, axes, b)
		n := nByKey[b.Key]
		if n == nil {
			for _, rep := range b.Reps {
				out.onlyBase = append(out.onlyBase, fmt.Sprintf("%s replicate=%d", label, rep))
			}
			continue
		}
		out.common++
		// Pair replicates present on both sides; both ok enter the deltas.
		u := unit{label: label}
		for i, rep := range b.Reps {
			k := slices.Index(n.Reps, rep)
			if k < 0 {
				out.onlyBase = append(out.onlyBase, fmt.Sprintf("%s replicate=%d", label, rep))
				continue
			}
			out.jobs++
			bs, ns := status(base, b.Rows[i]), status(nw, n.Rows[k])
			if bs != ns {
				out.status = append(out.status, StatusChange{JobID: fmt.Sprintf("%s replicate=%d", label, rep), Base: bs, New: ns, Error: text(nw, "error", n.Rows[k])})
				continue
			}
			if bs == "" || bs == string(journal.StatusOK) {
				u.bRows, u.nRows = append(u.bRows, b.Rows[i]), append(u.nRows, n.Rows[k])
			}
		}
		for _, rep := range n.Reps {
			if !slices.Contains(b.Reps, rep) {
				out.onlyNew = append(out.onlyNew, fmt.Sprintf("%s replicate=%d", label, rep))
			}
		}
		if len(u.bRows) > 0 {
			out.units = append(out.units, u)
		}
	}
	return out
}

// num formats a value of a comparison's text: by job the value itself, exactly enough
// to see a regression (resultsdir.FormatNum, six significant digits); by params a mean over
// replicates in the style of its interval (ci.Num, four significant digits).
func (p Pairing) num(v float64) string {
	if p == PairByParams {
		return ci.Num(v)
	}
	return resultsdir.FormatNum(v)
}

// missing is "base" or "new" when that table lacks the metric's column, else "".
func missing(m string, base, nw *resultsdir.Table) string {
	switch {
	case base.Col(m) == nil:
		return "base"
	case nw.Col(m) == nil:
		return "new"
	}
	return ""
}

// noPairs is the error of a comparison whose pairing matched nothing: every row is on
// one side only, so a table of zero deltas would say nothing. It names the pairing that
// would match, when the other one does.
func noPairs(p Pairing, baseDir, newDir string, base, nw *resultsdir.Table, axes []string) error {
	what := "job of %s has a job_id of %s"
	if p == PairByParams {
		what = "point of %s (swept values) is a point of %s"
	}
	msg := fmt.Sprintf("no "+what+" (%d and %d jobs): nothing to compare", newDir, baseDir, nw.Rows, base.Rows)
	other := PairByParams
	if p == PairByParams {
		other = PairByJob
	}
	if o, err := pair(base, nw, other, axes); err == nil && o.common > 0 {
		if other == PairByParams {
			return fmt.Errorf("%s; their job ids differ (a job id names its whole configuration): --by params pairs %d jobs of %d points by %s and replicate", msg, o.jobs, o.common, axesText(axes))
		}
		return fmt.Errorf("%s; --by job_id pairs %d jobs", msg, o.common)
	}
	return fmt.Errorf("%s; neither job ids nor swept values (%s) match: the two directories are different studies", msg, axesText(axes))
}
