package main

import (
	"fmt"
	"time"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/fabric"
	"github.com/rocesweep/rocesweep/sweep"
)

// longJobWarning is the wall time above which a job's estimate is warned of (longJobs).
const longJobWarning = 10 * time.Minute

// longJobs warns of the points whose jobs are estimated to take more than
// longJobWarning of one core each (fabric.Estimate.CPUSec), naming the spec, the largest
// and the keys that make a job long; "" when none is. A message of a terabyte with
// `stop: drain` runs until it completes, whatever `duration` says.
func longJobs(p *sweep.Plan, all []sweep.JobEstimate) string {
	var worst *sweep.JobEstimate
	n := 0
	for i, e := range all {
		if e.CPUSec > longJobWarning.Seconds() {
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
		p.Spec.File, n, len(all), longJobWarning, p.Label(worst.Job), config.Commas(int64(worst.Events/1e6)), fabric.HumanBytes(int64(min(worst.Bytes, 9e18))),
		config.Commas(int64(min(worst.Messages, 9e18))), (time.Duration(worst.CPUSec) * time.Second).Round(time.Minute), config.Commas(int64(fabric.EventsPerSecond/1e6)), keys)
}
