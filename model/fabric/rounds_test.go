package fabric

import (
	"slices"
	"testing"
)

// A repeating incast in a job: 3 senders × 64 KB into host 3 of a 4-host star, rounds of
// 20 us. Each round's messages are posted at r × 20 us (no jitter) and, on an idle 400
// Gbps star, complete well within the period (64 KB take about 1.3 us on the receiver's
// link per sender), so every round is in messages. With duration 50 us only rounds 0, 1
// and 2 start before the end (rounds 3.. would start at 60 us and later): 9 messages
// posted, of the 30 of ten rounds.
func TestRepeatingIncastJob(t *testing.T) {
	for _, tc := range []struct {
		name, rounds, duration, stop string
		wantPost                     []int64 // post_ns of every message, sorted
	}{
		{"4 rounds drained", "4", "1ms", "drain", []int64{0, 0, 0, 20_000, 20_000, 20_000, 40_000, 40_000, 40_000, 60_000, 60_000, 60_000}},
		{"10 rounds in 50us", "10", "50us", "duration", []int64{0, 0, 0, 20_000, 20_000, 20_000, 40_000, 40_000, 40_000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := job(t, "topology.hosts", "4", "workload.senders", "3", "workload.message_size", "64KB",
				"workload.rounds", tc.rounds, "workload.period", "20us", "duration", tc.duration, "stop", tc.stop)
			_, res := run(t, cfg)
			var post []int64
			for _, m := range res.Rec.Messages {
				post = append(post, m.PostNs)
			}
			slices.Sort(post)
			if !slices.Equal(post, tc.wantPost) {
				t.Errorf("post_ns %v, want %v", post, tc.wantPost)
			}
			n := int64(len(tc.wantPost))
			if len(res.Rec.Classes) != 1 || res.Rec.Classes[0].MsgsPosted != n || res.Rec.Classes[0].MsgsCompleted != n {
				t.Errorf("classes %+v, want one row with %d posted and completed", res.Rec.Classes, n)
			}
		})
	}
}
