package report

import "testing"

func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		n          int
		word, want string
	}{{1, "replicate", "1 replicate"}, {3, "replicate", "3 replicates"}, {0, "job", "0 jobs"}, {1, "switch", "1 switch"}, {2, "switch", "2 switches"}, {1, "shard", "1 shard"}} {
		if got := Plural(tc.n, tc.word); got != tc.want {
			t.Errorf("Plural(%d, %s) = %q, want %q", tc.n, tc.word, got, tc.want)
		}
	}
}
