package workload

import (
	"fmt"
	"io/fs"
	"math"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/sim"
)

// MaxMessageSize bounds one message (1 TiB). A job's time grows with its messages' bytes
// (fabric.Estimate.CPUSec), its memory does not: the sending NIC keeps a send time per
// PSN in flight (a ring sized by its window), not per segment of the message.
const MaxMessageSize = 1 << 40

// Count is the size of a schedule, known without generating it.
type Count struct {
	Messages float64 // messages (expected, for load elements)
	Bytes    float64 // payload bytes of all messages
	MaxSize  int64   // the largest message
}

// CountMessages checks w as Generate would — sizes, counts, distribution files (parsed
// and checked) — and returns the schedule's size without allocating it, so that
// `validate` finds what would fail in the job. hosts, lineRateBps and
// duration are those Generate gets.
func CountMessages(w config.Workload, hosts int, lineRateBps float64, duration sim.Time, cdfDir fs.FS) (Count, error) {
	elems, paths := []config.Workload{w}, []string{"workload"}
	if w.Kind == "mix" {
		elems, paths = w.Mix, nil
		for i := range w.Mix {
			paths = append(paths, fmt.Sprintf("workload.mix.%d", i))
		}
	}
	var c Count
	for i, e := range elems {
		if err := countElement(&c, paths[i], e, hosts, lineRateBps, duration, cdfDir); err != nil {
			return c, err
		}
	}
	if c.Messages > MaxMessages {
		return c, fmt.Errorf("workload: %.0f messages exceed the limit of %d", c.Messages, MaxMessages)
	}
	return c, nil
}

func countElement(c *Count, path string, w config.Workload, hosts int, rate float64, duration sim.Time, cdfDir fs.FS) error {
	msgs := float64(max(w.Messages, 1))
	H := float64(hosts)
	var n float64
	switch w.Kind {
	case "none", "mix", "":
		return nil
	case "incast":
		n = float64(w.Senders) * msgs * float64(incastRounds(w, duration))
	case "permutation":
		n = H * msgs
	case "all-to-all":
		n = H * (H - 1) * msgs
	case "load":
		cdf, err := LoadCDF(cdfDir, w.Distribution)
		if err != nil {
			return fmt.Errorf("%s.%v", path, trimPrefix(err))
		}
		maxSize := cdf.Size[len(cdf.Size)-1]
		if maxSize > MaxMessageSize {
			return fmt.Errorf("%s.distribution: %s holds sizes up to %.0f B; at most %s B", path, cdf.Name, maxSize, config.Commas(MaxMessageSize))
		}
		c.MaxSize = max(c.MaxSize, int64(maxSize))
		span := float64(duration - w.Start)
		if span <= 0 || !(w.Load > 0) || !(rate > 0) {
			return nil
		}
		mean := cdf.Mean()
		gapPs := 8 * mean / (w.Load * rate) * 1e12
		n = H * span / gapPs
		c.Messages += n
		c.Bytes += n * mean
		return nil
	default:
		return nil // config.Validate names an unknown kind
	}
	size := int64(w.MessageSize)
	if size < 1 {
		return fmt.Errorf("%s.message_size: %d B, want >= 1", path, size)
	}
	if size > MaxMessageSize {
		return fmt.Errorf("%s.message_size: %s B; at most %s B (1 TiB) per message", path, config.Commas(size), config.Commas(MaxMessageSize))
	}
	if n+c.Messages > MaxMessages || math.IsInf(n, 0) {
		return fmt.Errorf("%s: %.0f messages exceed the limit of %d", path, n+c.Messages, MaxMessages)
	}
	c.MaxSize = max(c.MaxSize, size)
	c.Messages += n
	c.Bytes += n * float64(size)
	return nil
}
