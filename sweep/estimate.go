package sweep

import (
	"fmt"
	"time"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/fabric"
)

// JobEstimate is a job of a plan with its estimate (fabric.EstimateJob).
type JobEstimate struct {
	Job *Job
	fabric.Estimate
}

// Estimates estimates one job per valid grid point (replicates differ only in their
// seed) and returns them with the largest by memory. Invalid points are skipped: the
// rules that make them invalid are reported on their own.
func Estimates(p *Plan) (all []JobEstimate, largest *JobEstimate) {
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
		all = append(all, JobEstimate{j, e})
	}
	for i := range all {
		if largest == nil || all[i].MemBytes > largest.MemBytes {
			largest = &all[i]
		}
	}
	return all, largest
}

// Mem is the estimated memory of e's job, 0 for no job.
func (e *JobEstimate) Mem() int64 {
	if e == nil {
		return 0
	}
	return e.MemBytes
}

// OverMemory returns the error refusing the jobs whose estimate exceeds limit bytes
// (0 = no limit; what names it), naming each point (at most 5) and the limit.
func OverMemory(p *Plan, all []JobEstimate, limit int64, what string) error {
	if limit <= 0 {
		return nil
	}
	var over []JobEstimate
	for _, e := range all {
		if e.MemBytes > limit {
			over = append(over, e)
		}
	}
	if len(over) == 0 {
		return nil
	}
	msg := fmt.Sprintf("%s: %d of %d points need more memory than %s (%s):", p.Spec.File, len(over), len(all), what, fabric.HumanBytes(limit))
	for i, e := range over {
		if i == 5 {
			msg += fmt.Sprintf("\n  ... and %d more", len(over)-5)
			break
		}
		msg += fmt.Sprintf("\n  %s: %s", p.Label(e.Job), e.Estimate)
	}
	return fmt.Errorf("%s\nlower their cost: duration, report intervals (report_interval, global.NDStatsReportInterval), messages (workload.messages, workload.message_size), hosts (topology)", msg)
}

// MarkOverBudget makes the points whose estimate exceeds memLimit bytes of memory
// (what names the limit) or maxDisk bytes of disk per job (0: no limit) invalid, with
// the estimate and the budget in the reason, so that they are refused (or recorded as
// invalid) rather than started to exhaust the machine.
func MarkOverBudget(p *Plan, memLimit int64, memWhat string, maxDisk int64) {
	all, _ := Estimates(p)
	for _, e := range all {
		switch {
		case memLimit > 0 && e.MemBytes > memLimit:
			p.MarkInvalid(e.Job.Point, fmt.Errorf("estimated at %s of memory, above %s (%s): lower its cost (duration, report_interval or global.NDStatsReportInterval, workload.messages, topology hosts) or raise the limit",
				fabric.HumanBytes(e.MemBytes), memWhat, fabric.HumanBytes(memLimit)))
		case maxDisk > 0 && e.DiskBytes > maxDisk:
			p.MarkInvalid(e.Job.Point, fmt.Errorf("its rows are estimated at %s on disk while it runs (%.3g rows), above the disk budget per job (--max-disk-per-job %s): lower its report intervals (report_interval, global.NDStatsReportInterval), duration or traffic, or raise the budget",
				fabric.HumanBytes(e.DiskBytes), e.Rows, fabric.HumanBytes(maxDisk)))
		}
	}
}

// OverDiskShare warns of the points whose rows are estimated above share bytes on disk
// while a job runs, share being a job's part of the free space of dir's file system (the
// default of --max-disk-per-job): such a job stops the sweep if its rows do outgrow it,
// and --resume runs it. "" when none is.
func OverDiskShare(p *Plan, share int64, dir string) string {
	all, _ := Estimates(p)
	var worst *JobEstimate
	n := 0
	for i, e := range all {
		if e.DiskBytes > share {
			n++
			if worst == nil || e.DiskBytes > worst.DiskBytes {
				worst = &all[i]
			}
		}
	}
	if worst == nil {
		return ""
	}
	return fmt.Sprintf("%d of %d points are estimated to hold more rows on disk while a job runs than a job's share of the free space of %s's file system (%s, the free space less a fifth, over -j); the largest, %s, %s: if a job's rows outgrow it the sweep stops unrecorded (free space, lower -j or give --max-disk-per-job, then --resume)",
		n, len(all), dir, fabric.HumanBytes(share), p.Label(worst.Job), fabric.HumanBytes(worst.DiskBytes))
}

// LongJobWarning is the wall time above which a job's estimate is warned of (LongJobs).
const LongJobWarning = 10 * time.Minute

// LongJobs warns of the points whose jobs are estimated to take more than
// LongJobWarning of one core each (fabric.Estimate.CPUSec), naming the spec, the largest
// and the keys that make a job long; "" when none is. A message of a terabyte with
// `stop: drain` runs until it completes, whatever `duration` says.
func LongJobs(p *Plan, all []JobEstimate) string {
	var worst *JobEstimate
	n := 0
	for i, e := range all {
		if e.CPUSec > LongJobWarning.Seconds() {
			n++
			if worst == nil || e.CPUSec > worst.CPUSec {
				worst = &all[i]
			}
		}
	}
	if worst == nil {
		return ""
	}
	keys := "workload.message_size, workload.messages, duration"
	if worst.Job.Config.Stop == "drain" {
		keys += " (stop: drain runs until every message completes)"
	}
	return fmt.Sprintf("%s: %d of %d points are estimated above %v of one core a job; the largest, %s: ~%s M events for %s of payload in %s messages, about %s at ~%s M events/s (docs/performance.md \"Performance\"): check %s, or bound each job with --max-wall-per-job",
		p.Spec.File, n, len(all), LongJobWarning, p.Label(worst.Job), config.Commas(int64(worst.Events/1e6)), fabric.HumanBytes(int64(min(worst.Bytes, 9e18))),
		config.Commas(int64(min(worst.Messages, 9e18))), (time.Duration(worst.CPUSec) * time.Second).Round(time.Minute), config.Commas(int64(fabric.EventsPerSecond/1e6)), keys)
}
