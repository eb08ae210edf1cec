package fabric

import (
	"errors"
	"fmt"
)

// CheckConservation checks the fabric-wide ledgers at the current time
// ("bytes injected = bytes delivered + dropped + in flight"):
//
//   - links: every frame a device sent was received by its peer or is still on the link;
//   - switches: frames received = frames forwarded + dropped + held (each switch also
//     checks its own per-port byte ledgers);
//   - payload: bytes delivered in order to hosts never exceed the bytes posted, per host
//     pair (CheckDrained adds: once drained, they are equal).
//
// Tests call it after every run; a failure is a model bug, reported with the numbers.
func (f *Fabric) CheckConservation() error {
	var errs []error
	var tx, rx, onLinks int64
	for i := range f.links {
		n, _ := f.links[i].InFlight()
		onLinks += int64(n)
	}
	for _, s := range f.switches {
		c := s.Counters()
		tx += c.TxFrames
		rx += c.RxFrames
		data := c.RxFrames - c.RxPfcFrames
		out := c.TxFrames - c.TxPfcFrames
		if held := int64(s.HeldDataFrames()); data != out+c.RxDrops+c.TxDrops+held {
			errs = append(errs, fmt.Errorf("switch frames: received %d data frames, forwarded %d + dropped %d + held %d", data, out, c.RxDrops+c.TxDrops, held))
		}
		if err := s.CheckConservation(); err != nil {
			errs = append(errs, err)
		}
	}
	for _, n := range f.nics {
		c := n.Counters()
		tx += c.TxFrames
		rx += c.RxFrames
	}
	if tx != rx+onLinks {
		errs = append(errs, fmt.Errorf("links: %d frames sent, %d received + %d in flight", tx, rx, onLinks))
	}
	if f.delivered > f.posted {
		errs = append(errs, fmt.Errorf("payload: %d bytes delivered, only %d posted", f.delivered, f.posted))
	}
	for k, p := range f.pairs {
		if p.delivered > p.posted {
			src, dst := pairHosts(k)
			errs = append(errs, fmt.Errorf("payload host %d -> %d: %d bytes delivered, only %d posted", src, dst, p.delivered, p.posted))
		}
	}
	return errors.Join(errs...)
}

// CheckDrained checks, after a drained run, that every host pair's posted payload was
// delivered exactly once: delivered == posted per pair ("every completed
// message delivered exactly its bytes once").
func (f *Fabric) CheckDrained() error {
	if f.completed != len(f.msgs) {
		return fmt.Errorf("%d of %d messages completed", f.completed, len(f.msgs))
	}
	var errs []error
	for k, p := range f.pairs {
		if p.delivered != p.posted {
			src, dst := pairHosts(k)
			errs = append(errs, fmt.Errorf("host %d -> %d: %d bytes delivered, %d posted", src, dst, p.delivered, p.posted))
		}
	}
	return errors.Join(errs...)
}
