package resultsdir

import (
	"strings"
	"testing"
)

func TestStatusMissingRunning(t *testing.T) {
	st := &Status{Shards: []ShardStatus{{Missing: 3, Writer: "pid 1"}, {Missing: 2}, {Missing: 0, Writer: "pid 2"}, {Missing: 4}}}
	if r, i, n := st.MissingRunning(); r != 3 || i != 6 || n != 2 {
		t.Errorf("MissingRunning() = %d, %d, %d; want 3 running, 6 idle, 2 shards written", r, i, n)
	}
}

func TestStuckPauseWarning(t *testing.T) {
	for _, tc := range []struct {
		ids  []string
		want string
	}{
		{nil, ""},
		{[]string{"a", "b"}, "2 jobs have a stuck pause (a, b): "},
		{[]string{"a", "b", "c", "d", "e", "f", "g"}, "7 jobs have a stuck pause (a, b, c, d, e and 2 more): "},
	} {
		got := (&Status{StuckPause: tc.ids}).StuckPauseWarning()
		if !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") {
			t.Errorf("%v: %q, want it to start %q", tc.ids, got, tc.want)
		}
	}
}
