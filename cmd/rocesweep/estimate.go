package main

import (
	"fmt"

	"github.com/rocesweep/rocesweep/model/fabric"
	"github.com/rocesweep/rocesweep/sweep"
)

// jobEstimate is a job of a plan with its estimate (fabric.EstimateJob).
type jobEstimate struct {
	Job *sweep.Job
	fabric.Estimate
}

// planEstimates estimates one job per valid grid point (replicates differ only in their
// seed) and returns them with the largest by memory. Invalid points are skipped: the
// rules that make them invalid are reported on their own.
func planEstimates(p *sweep.Plan) (all []jobEstimate, largest *jobEstimate) {
	last := -1
	for _, j := range p.Jobs {
		if j.Invalid != nil || j.Point == last {
			continue
		}
		last = j.Point
		e, err := fabric.EstimateJob(&j.Config)
		if err != nil {
			continue // Expand's validation names it
		}
		all = append(all, jobEstimate{j, e})
	}
	for i := range all {
		if largest == nil || all[i].MemBytes > largest.MemBytes {
			largest = &all[i]
		}
	}
	return all, largest
}

// overMemory returns the error refusing the jobs whose estimate exceeds limit bytes
// (0 = no limit; what names it), naming each point (at most 5) and the limit.
func overMemory(p *sweep.Plan, all []jobEstimate, limit int64, what string) error {
	if limit <= 0 {
		return nil
	}
	var over []jobEstimate
	for _, e := range all {
		if e.MemBytes > limit {
			over = append(over, e)
		}
	}
	if len(over) == 0 {
		return nil
	}
	msg := fmt.Sprintf("%d of %d points need more memory than %s (%s):", len(over), len(all), what, fabric.HumanBytes(limit))
	for i, e := range over {
		if i == 5 {
			msg += fmt.Sprintf("\n  ... and %d more", len(over)-5)
			break
		}
		msg += fmt.Sprintf("\n  %s: %s", p.Label(e.Job), e.Estimate)
	}
	return fmt.Errorf("%s\nlower their cost: duration, report intervals (global.NDStatsReportInterval), messages, hosts", msg)
}

// mem is the estimated memory of e's job, 0 for no job.
func (e *jobEstimate) mem() int64 {
	if e == nil {
		return 0
	}
	return e.MemBytes
}
