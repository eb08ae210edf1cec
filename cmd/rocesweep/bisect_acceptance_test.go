package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/resultsdir"
)

// TestHeadroomBisectionAcceptance is issue 42's acceptance of a bisection, on
// configs/headroom.yaml with two of its delays (--grid): run answers, for each delay, the
// smallest headroom with no lossless drop to 1 KB, in 12 jobs a delay, beside explain's
// formula; the report opens with that table; status --json has it; `rocesweep sim` at
// the answer drops nothing and 1 KB below it drops. Skipped with -short (it simulates).
func TestHeadroomBisectionAcceptance(t *testing.T) {
	if testing.Short() {
		t.Skip("runs configs/headroom.yaml")
	}
	t.Parallel() // no package state changed: runs beside the other parallel tests
	ctx := context.Background()
	spec := "../../configs/headroom.yaml"
	dir := filepath.Join(t.TempDir(), "headroom")
	var out, errb bytes.Buffer
	if code := mainWithArgs(ctx, []string{"run", spec, "-o", dir, "--grid", "nic.Delay=100ns,1us", "-j", "2"}, &out, &errb); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errb.String())
	}
	for _, want := range []string{
		"Smallest switch.HeadRoomPerPortLimit such that drops_lossless == 0, to 1KB: Delay=100ns: 13KB; Delay=1us: 100KB.",
		"  Delay=100ns  13KB ", " 12KB ", " 18,368 B ", "+5,368 B (+41.3%): conservative",
		"  Delay=1us    100KB ", " 99KB ", " 108,368 B ", "+8,368 B (+8.37%): conservative", "rack Xoff 300,000 B, Xon 100,000 B",
		"cost: 24 jobs; a grid at this resolution would run 2,002 jobs (1,001 values × 2 conditions).",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("run's closing table lacks %q:\n%s", want, out.String())
		}
	}

	html := filepath.Join(t.TempDir(), "r.html")
	out.Reset()
	if code := mainWithArgs(ctx, []string{"report", dir, "-o", html}, &out, &errb); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, errb.String())
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	head, table, config := bytes.Index(page, []byte(`id="headline"`)), bytes.Index(page, []byte(`id="bisection"`)), bytes.Index(page, []byte(`id="config"`))
	if head < 0 || table < head || config < table {
		t.Errorf("the headline, the answer table and the configuration are not in that order (%d, %d, %d)", head, table, config)
	}
	// No "Answers" of a best point: probes are not points to compare.
	for _, want := range []string{`<td>Delay=1us</td><td class="num clear">100KB</td><td class="num">99KB</td><td class="num">12</td><td class="num">108,368 B</td>`,
		"Exact: the spec says its jobs are deterministic", `>Answers</h2>`} {
		if got := bytes.Contains(page, []byte(want)); got != (want != `>Answers</h2>`) {
			t.Errorf("report page: %q present %v", want, got)
		}
	}

	out.Reset()
	if code := mainWithArgs(ctx, []string{"status", dir, "--json"}, &out, &errb); code != 0 {
		t.Fatalf("status: exit %d\n%s", code, errb.String())
	}
	var st resultsdir.Status
	if err := json.Unmarshal(out.Bytes(), &st); err != nil {
		t.Fatal(err)
	}
	b := st.Bisection
	if b == nil || b.State != "decided" || b.Jobs != 24 || len(b.Conditions) != 2 || !st.Complete {
		t.Fatalf("status --json bisection: %+v", b)
	}
	if c := b.Conditions[1]; *c.Answer != 100000 || *c.Fails != 99000 || c.Formula == nil || c.Formula.Value != 108368 || *c.Formula.Margin != 8368 {
		t.Errorf("status --json, Delay=1us: %+v", c)
	}

	// The answer holds, 1 KB below it does not, in a job of its own.
	for _, tc := range []struct {
		headroom string
		drops    int
	}{{"100KB", 0}, {"99KB", 6}} {
		out.Reset()
		simDir := filepath.Join(t.TempDir(), "sim")
		if code := mainWithArgs(ctx, []string{"sim", spec, "--set", "nic.Delay=1us", "--set", "switch.HeadRoomPerPortLimit=" + tc.headroom, "-o", simDir, "--json"}, &out, &errb); code != 0 {
			t.Fatalf("sim: exit %d\n%s", code, errb.String())
		}
		var sim struct {
			Metrics map[string]any `json:"metrics"`
		}
		if err := json.Unmarshal(out.Bytes(), &sim); err != nil {
			t.Fatal(err)
		}
		if got := sim.Metrics["drops_lossless"]; got != float64(tc.drops) {
			t.Errorf("sim at %s: drops_lossless %v, want %d", tc.headroom, got, tc.drops)
		}
	}
}
