package resultsdir

import (
	"fmt"
	"strings"

	"github.com/rocesweep/rocesweep/resultsdir/journal"
)

// MissingRunning splits the missing jobs: running, those of shards a process is writing
// now (still to run, not lost), and idle, the others (they need --resume); shards is the
// number of shards being written.
func (st *Status) MissingRunning() (running, idle, shards int) {
	for _, s := range st.Shards {
		if s.Writer != "" {
			running += s.Missing
			shards++
		} else {
			idle += s.Missing
		}
	}
	return running, idle, shards
}

// StuckPauseWarning explains the jobs of StuckPause in one line ("" when there are none).
func (st *Status) StuckPauseWarning() string {
	ids := st.StuckPause
	if len(ids) == 0 {
		return ""
	}
	shown := ids[:min(len(ids), 5)]
	more := ""
	if len(ids) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(ids)-len(shown))
	}
	return fmt.Sprintf("%d jobs have a stuck pause (%s%s): a switch port stayed paused for more than half the run while its pool sat at or below Xon. "+
		"A lossless class shares its pool with a lossy one (switch.md §4.6 condition 3; rocesweep explain warns): their pause and FCT figures measure that trap, not congestion (column stuck_pause_ports of jobs)",
		len(ids), strings.Join(shown, ", "), more)
}

// DamageText says what a damaged committed file costs, naming the jobs it leaves out:
// "jobs/part-1of1-000002.parquet: missing; the 26 jobs of commit 2 are missing
// (5df6f657abb1894d, ... and 21 more)". status prints it after "damaged: "; export and
// report, which leave such commits out of every table, too.
func DamageText(d journal.FileProblem) string {
	shown := d.Jobs[:min(len(d.Jobs), 5)]
	more := ""
	if len(d.Jobs) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(d.Jobs)-len(shown))
	}
	return fmt.Sprintf("%s: %s; the %d jobs of commit %d are missing (%s%s)", d.File, d.Problem, len(d.Jobs), d.Commit, strings.Join(shown, ", "), more)
}

// Damage returns the committed files of dir that are missing, links or of another size
// than their journals record (ReadCommitted): every reader leaves their commits out
// whole, so their jobs are missing from every table.
func Damage(dir string) ([]journal.FileProblem, error) {
	c, err := ReadCommitted(dir)
	if err != nil {
		return nil, err
	}
	return c.Damaged, nil
}
