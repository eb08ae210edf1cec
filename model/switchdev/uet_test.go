package switchdev

import (
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/pkt"
)

// TestUETTrimming: under the UET policy with trimming (§6), a trimmable packet over the
// fixed limit B = PlaneBDP is cut to 44 B, re-marked TRIMMED_LASTHOP (peer is a NIC),
// re-charged to pool 1 and queued on TC1; NO_TRIM packets drop; the trimmable-retransmit
// codepoint may use 1.5 × B.
func TestUETTrimming(t *testing.T) {
	cfg := config.DefaultSwitch()
	cfg.SharedBufferManager.UETPolicyEnabled = true
	cfg.SharedBufferManager.EnablePFC = config.Vec8{}
	cfg.PacketTrimmer.TrimmingEnabled = true
	send := func(f *fab, sw *Switch, dscp uint8) pkt.Handle {
		h := f.data(0, 4000, 0, 1, 1)
		f.pool.Get(h).DSCP = dscp
		sw.Receive(0, h)
		return h
	}
	f, _ := fillBlocked(t, &cfg, 2, 0, []int16{1}, func(f *fab, sw *Switch) {
		sw.Receive(1, f.pfc(1, pkt.PauseQuanta)) // hold TC1 too
		for k := 0; k < 75; k++ {
			send(f, sw, DSCPTrimmable)
		}
		if q := sw.Port(1, 0).EgQ; q != 300_000 || sw.c.Trimmed != 0 {
			t.Fatalf("egQ %d trimmed %d, want 300,000 0", q, sw.c.Trimmed)
		}
		h := send(f, sw, DSCPTrimmable)
		p := f.pool.Get(h)
		if sw.c.Trimmed != 1 || p.Size != 44 || p.DSCP != DSCPTrimmedLastHop || sw.ports[1].fifo[1].Len() != 1 ||
			sw.Port(1, 1).EgQ != 46 || sw.Port(0, 1).IngOcc != 46 || sw.Port(0, 0).IngOcc != 300_000 {
			t.Fatalf("trim: %+v egQ1 %d ingOcc %d/%d", *p, sw.Port(1, 1).EgQ, sw.Port(0, 0).IngOcc, sw.Port(0, 1).IngOcc)
		}
		send(f, sw, DSCPNoTrim)
		if sw.c.TxDrops != 1 {
			t.Fatalf("NO_TRIM over the limit: %d drops, want 1", sw.c.TxDrops)
		}
		for k := 0; k < 37; k++ {
			send(f, sw, DSCPTrimmableRetx)
		}
		if q := sw.Port(1, 0).EgQ; q != 448_000 || sw.c.Trimmed != 1 {
			t.Fatalf("retx: egQ %d trimmed %d, want 448,000 1", q, sw.c.Trimmed)
		}
		send(f, sw, DSCPTrimmableRetx)
		if sw.c.Trimmed != 2 {
			t.Fatalf("retx over 1.5 × B not trimmed")
		}
	})
	f.at(f.eng.Now(), 0, 1, f.pfc(1, 0))
	drain(t, f, 0, []int16{1})
	trimmed := 0
	for _, d := range f.got {
		if d.link == 1 && d.size == 44 {
			trimmed++
		}
	}
	if trimmed != 2 {
		t.Fatalf("%d trimmed frames delivered, want 2", trimmed)
	}
}
