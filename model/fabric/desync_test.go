package fabric

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model/sim"
)

// incastTimeline runs an 8→1 incast on a 9-host star at LossyAlpha 1 on a lossy data
// class and returns, per sender, the payload delivered to the receiver by each of the
// given times, with the NAK and timeout recoveries of each sender.
type senderTimeline struct {
	bytesBy    [][]int64 // [sender][checkpoint]
	naks, rtos []int64
	drops      int64
	end        sim.Time
}

func lossyIncast(t testing.TB, checkpoints []sim.Time, sets ...string) senderTimeline {
	t.Helper()
	base := []string{
		"topology.hosts", "9", "workload.kind", "incast", "workload.senders", "8",
		"workload.message_size", "1MiB", "workload.data_tc", "2", "workload.control_tc", "1",
		"switch.EnablePFC", "[1, 1, 0, 0, 0, 0, 0, 0]", "switch.LossyAlpha", "1",
		"nic.IngressBufferManager.PoolAllocationVector", "[0.8, 0.1, 0.1, 0, 0, 0, 0, 0]",
		"nic.EgressBufferManager.PoolAllocationVector", "[0.8, 0.1, 0.1, 0, 0, 0, 0, 0]",
		"switch.TotalSharedBufferSize", "4MB", "stop", "drain", "duration", "1s", "report_interval", "1s",
	}
	cfg := job(t, append(base, sets...)...)
	f, err := New(cfg, Options{JobID: "desync", Clock: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	tl := senderTimeline{bytesBy: make([][]int64, 8), naks: make([]int64, 8), rtos: make([]int64, 8)}
	for s := range tl.bytesBy {
		tl.bytesBy[s] = make([]int64, len(checkpoints))
	}
	recv := f.nics[8]
	inner := recv.OnDelivered
	recv.OnDelivered = func(src int32, b int64) {
		inner(src, b)
		now := f.eng.Now()
		for i, c := range checkpoints {
			if now <= c {
				tl.bytesBy[src][i] += b
			}
		}
	}
	if err := f.Loop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := f.CheckDrained(); err != nil {
		t.Fatalf("not drained: %v", err)
	}
	for s := 0; s < 8; s++ {
		c := f.nics[s].Counters()
		tl.naks[s], tl.rtos[s] = c.Roce.NacksRecvd, c.RTO
	}
	tl.drops = f.summary().DropsLossy
	tl.end = f.eng.Now()
	return tl
}

func (tl senderTimeline) String() string {
	var b strings.Builder
	for s := range tl.bytesBy {
		fmt.Fprintf(&b, "  sender %d: KiB by checkpoint %v, NAK recoveries %d, timeouts %d\n", s,
			func() []int64 {
				out := make([]int64, len(tl.bytesBy[s]))
				for i, v := range tl.bytesBy[s] {
					out[i] = v / 1024
				}
				return out
			}(), tl.naks[s], tl.rtos[s])
	}
	fmt.Fprintf(&b, "  lossy drops %d, drained at %v", tl.drops, tl.end)
	return b.String()
}

func (tl senderTimeline) brief(cp int) string {
	var fin, naks, rtos int64
	var shares []int64
	for s := range tl.bytesBy {
		if tl.bytesBy[s][cp] == 1<<20 {
			fin++
		}
		shares = append(shares, tl.bytesBy[s][cp]/1024)
		naks += tl.naks[s]
		rtos += tl.rtos[s]
	}
	return fmt.Sprintf("KiB by 200us %v, done by 200us %d/8, NAK recoveries %d, timeouts %d, drops %d, drained %v", shares, fin, naks, rtos, tl.drops, tl.end)
}

// TestLossyIncastDesync is the measurement behind spec.md "Desynchronised senders": an
// 8→1 incast on a lossy class at LossyAlpha 1. With exact timing every NIC sends at one
// rate and simultaneous arrivals are served in a fixed order, so the same senders win
// every freed buffer slot: two finish within 200 us, the other six lose every packet
// after their first ~100 KiB and wait for the 64 ms retransmission timer. With the
// realism settings (ClockTolerancePpm 100, TxJitter 5ns) no sender is favoured: by
// 200 us every sender has delivered about the same (within 25%), in every seed. (The
// recovery itself still needs the timer: go-back-N resends collide as the first sends
// did, and a lost first retransmission is recovered by the timer only, nic.md §8.)
func TestLossyIncastDesync(t *testing.T) {
	cps := []sim.Time{25 * sim.Microsecond, 200 * sim.Microsecond, 70 * sim.Millisecond, 140 * sim.Millisecond, 210 * sim.Millisecond}
	realism := []string{"nic.ClockTolerancePpm", "100", "nic.TxJitter", "5ns"}
	for _, seed := range []string{"1", "2", "3"} {
		exact := lossyIncast(t, cps, "seed", seed)
		real := lossyIncast(t, cps, append([]string{"seed", seed}, realism...)...)
		t.Logf("seed %s exact:   %s\n%s", seed, exact.brief(1), exact)
		t.Logf("seed %s realism: %s\n%s", seed, real.brief(1), real)
		lo, hi := minMax(exact, 1)
		if hi != 1<<20 || lo > 150<<10 {
			t.Errorf("seed %s exact timing: per-sender bytes by 200 us in [%d, %d]: the phase-lock artifact is gone; update docs/spec.md \"Desynchronised senders\"", seed, lo, hi)
		}
		lo, hi = minMax(real, 1)
		if float64(hi) > 1.25*float64(lo) {
			t.Errorf("seed %s realism: per-sender bytes by 200 us in [%d, %d]: some senders are favoured", seed, lo, hi)
		}
	}
}

func minMax(tl senderTimeline, cp int) (lo, hi int64) {
	lo = 1 << 62
	for s := range tl.bytesBy {
		lo, hi = min(lo, tl.bytesBy[s][cp]), max(hi, tl.bytesBy[s][cp])
	}
	return lo, hi
}
