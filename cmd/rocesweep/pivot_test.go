package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/launch"
	"github.com/rocesweep/rocesweep/sweep/specfile"
	"github.com/rocesweep/rocesweep/sweep/sweeptest"
)

func TestCheckMetric(t *testing.T) {
	if err := checkMetric("drops_total"); err != nil {
		t.Errorf("drops_total: %v", err)
	}
	if err := checkMetric("drops"); err == nil || !strings.Contains(err.Error(), `unknown metric "drops"`) {
		t.Errorf("drops: %v, want unknown metric", err)
	}
}

func TestPivot(t *testing.T) {
	s, err := specfile.Parse("spec.yaml", []byte(sweeptest.GridSpec("t", 1, 2, "200us")), []string{"replicates=1"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := sweep.Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := launch.Run(context.Background(), p, sweeptest.Job(20_000), launch.Options{Dir: t.TempDir(), CommitInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := pivot(&b, p, rep.Summaries, "drops_total"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	// Row 0.25, column 700KB: 250 + 700 + seed mod 7.
	j := p.Jobs[1]
	want := fmt.Sprint(250 + 700 + int64(j.Seed%7))
	lines := strings.Split(out, "\n")
	if len(lines) < 6 || !strings.Contains(lines[1], "switch.LossyAlpha \\ switch.StaticPoolXoffThreshold") ||
		!strings.Contains(lines[2], "0.25") || !strings.Contains(lines[2], want) {
		t.Errorf("pivot:\n%s(want %s in the 0.25 row)", out, want)
	}
}
