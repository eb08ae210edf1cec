package results

import (
	"fmt"
	"strings"
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
