package launch

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/rocesweep/rocesweep/internal/memory"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
)

// Recording: the one goroutine that owns the sink writes each finished job's rows, its
// jobs row and its journal line, and counts it in the report.

// statusResource is the outcome of a job that ended without its result because of the
// machine, not the job (machine.go); it is never recorded.
const statusResource = "resource"

// sinkLoop is the one goroutine that owns the sink: it writes each outcome's rows, then
// its jobs row, then marks it done; a ticker commits jobs that waited.
//
// Once the sweep stops (a signal, --fail-fast) every finished job is committed at once
// and each job that finishes later at its end, so a SIGKILL that follows a SIGTERM (a
// grace period of `docker stop` or Slurm) loses no finished job.
func (r *runner) sinkLoop(results <-chan outcome, done chan<- error) {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var failed error
	stop := r.stop
	for {
		select {
		case <-stop:
			stop = nil // once: from now on record commits after every job
			if failed == nil {
				if err := r.w.Commit(); err != nil {
					failed = err
				}
			}
		case o, ok := <-results:
			if !ok {
				err := r.w.Close()
				if failed == nil {
					failed = err
				}
				done <- failed
				return
			}
			if failed != nil {
				continue
			}
			if err := r.record(o); err != nil {
				failed = err
				r.halt("results")
			}
		case <-tick.C:
			if failed == nil {
				if err := r.w.Tick(); err != nil {
					failed = err
					r.halt("results")
				}
			}
			r.prog.render(false)
		}
	}
}

func (r *runner) record(o outcome) error {
	if o.status == statusResource {
		// The machine, not the job: nothing is recorded, the sweep stops with the jobs
		// finished so far committed, and --resume runs this one again.
		r.mu.Lock()
		r.rep.Machine++
		if r.resource == nil {
			r.resource = &MachineError{Job: r.plan.Label(o.job), Err: firstLine(o.err), Cause: o.cause}
		}
		r.mu.Unlock()
		r.halt("results")
		r.prog.render(true)
		return nil
	}
	var sum *stats.Summary
	if o.status == journal.StatusOK {
		// The job's rows in the order it produced them: the spill file's, those the
		// spill held, those the recorder held at the end.
		var rec stats.Batch
		if o.res.Rec != nil {
			rec = o.res.Rec.Batch
		}
		if o.spill != "" {
			err := writeSpilled(r.w, o.spill, o.held, rec)
			os.Remove(o.spill)
			if err != nil {
				return err
			}
		} else {
			if err := writeBatch(r.w, o.held); err != nil {
				return err
			}
			if err := writeBatch(r.w, rec); err != nil {
				return err
			}
		}
		if o.held.Rows() > 0 {
			freeHeld(o.held)
		}
		if r.o.Isolate != nil {
			// The runner of worker processes holds little but the sink: collect its
			// garbage (the strings of the rows decoded, the sink's encoding) every
			// replayGarbage bytes, as writeSpilled does, so that its footprint does not
			// grow to the collector's target, twice its live heap.
			memory.CollectGarbage(replayGarbage)
		}
		// A copy: the report keeps it to the end of the run, and a pointer into the
		// Result would keep the job's rows with it.
		s := o.res.Summary
		sum = &s
	}
	// A failed or timed-out job is committed alone, so that --retry withdraws its commit
	// and runs nothing else again.
	alone := o.status == journal.StatusFailed || o.status == journal.StatusTimeout
	if alone {
		if err := r.w.Commit(); err != nil {
			return err
		}
	}
	if err := r.w.Write("jobs", r.jt.row(o.job, string(o.status), o.err, sum)); err != nil {
		return err
	}
	if err := r.w.JobDone(journal.JobLine{ID: o.job.ID, Status: o.status}); err != nil {
		return err
	}
	if alone || r.stopped() {
		if err := r.w.Commit(); err != nil {
			return err
		}
	}
	r.mu.Lock()
	switch o.status {
	case journal.StatusOK:
		r.rep.OK++
		r.rep.Summaries[o.job] = sum
		r.rep.Events += sum.Events
		r.prog.events.Add(sum.Events)
	case journal.StatusFailed:
		r.rep.Failed++
	case journal.StatusTimeout:
		r.rep.Timeout++
	case journal.StatusInvalid:
		r.rep.Invalid++
	}
	if o.status == journal.StatusFailed || o.status == journal.StatusTimeout {
		r.rep.Errors = append(r.rep.Errors, r.plan.Label(o.job)+": "+firstLine(o.err))
		r.prog.failed.Add(1)
		if r.o.FailFast {
			r.mu.Unlock()
			r.halt("fail-fast")
			r.mu.Lock()
		}
	}
	r.mu.Unlock()
	r.prog.done.Add(1)
	r.prog.render(true)
	return nil
}

// MachineError is a sweep stopped by the machine, not by a job (machine.go): the job
// that met it is not recorded, and --resume runs it.
type MachineError struct {
	Job   string // the job's label
	Err   string // what happened, in one line
	Cause string // the limit or fault, with what to look at
}

func (e *MachineError) Error() string {
	return fmt.Sprintf("%s: %s: %s. Not the job's failure: it is not recorded, and the jobs finished before it are committed; fix that and run again with --resume", e.Job, e.Err, e.Cause)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
