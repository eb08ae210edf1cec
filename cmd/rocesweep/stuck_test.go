package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/report"
)

// stuckSpec reproduces a pause that never ends (model/fabric
// stuck_test.go): host 0 sends lossless TC 0 to an idle host 1 and lossy TC 2 into host
// 3, which two more lossy senders congest, all through pool 0.
const stuckSpec = `name: sticky
duration: 3ms
topology: {kind: star, hosts: 4}
workload:
  kind: mix
  mix:
    - {kind: incast, senders: 1, receiver: 1, message_size: 1MiB, data_tc: 0}
    - {kind: incast, senders: 3, receiver: 3, message_size: 2MiB, data_tc: 2}
nic:
  IngressBufferManager.PoolAllocationVector: [0.8, 0.1, 0.1, 0, 0, 0, 0, 0]
  EgressBufferManager.PoolAllocationVector: [0.8, 0.1, 0.1, 0, 0, 0, 0, 0]
`

// status, report and explain flag the stuck pause of the reproduction; status says
// nothing of the kind for the quickstart sweep with its lossy class in a pool of its own,
// whose pauses lift.
func TestStuckPauseFlagged(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	dir := t.TempDir()
	spec := filepath.Join(dir, "sticky.yaml")
	if err := os.WriteFile(spec, []byte(stuckSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := mainWithArgs(context.Background(), []string{"explain", spec}, &out, &errb); code != 0 {
		t.Fatalf("explain: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "rack switch pool 0 holds lossless TC0 and lossy TC2, failing sizing condition 3") ||
		!strings.Contains(out.String(), "Xon 300,000 B") || !strings.Contains(out.String(), "Xoff 700,000 B") {
		t.Errorf("explain warnings:\n%s", out.String())
	}
	res := filepath.Join(dir, "out")
	out.Reset()
	errb.Reset()
	if code := mainWithArgs(context.Background(), []string{"run", spec, "-o", res, "-j", "1"}, &out, &errb); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errb.String())
	}
	st := statusJSON(t, res)
	if len(st.StuckPause) != 1 {
		t.Errorf("stuck_pause_jobs %v, want the one job", st.StuckPause)
	}
	if txt := statusText(t, res); !strings.Contains(txt, "warning: 1 jobs have a stuck pause") {
		t.Errorf("status text:\n%s", txt)
	}
	r, err := report.Build(res, report.Options{Metrics: []string{"pfc_paused_usec"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "1 jobs have a stuck pause") {
		t.Errorf("report notes %q", r.Notes)
	}

	// The quickstart with its lossy class in a pool of its own: the pauses lift.
	qs := filepath.Join(dir, "qs")
	if code := mainWithArgs(context.Background(), []string{"run", "../../configs/quickstart.yaml", "-o", qs, "--select=false",
		"--set", "switch.TrafficClassPoolMapping=[0, 1, 2, 0, 0, 0, 0, 0]", "--set", "switch.PoolAllocationMap=[0.3, 0.5, 0.2, 0, 0, 0, 0, 0]"}, &out, &errb); code != 0 {
		t.Fatalf("run quickstart: exit %d: %s", code, errb.String())
	}
	if st := statusJSON(t, qs); len(st.StuckPause) != 0 {
		t.Errorf("quickstart with pools apart: stuck_pause_jobs %v, want none", st.StuckPause)
	}
	if txt := statusText(t, qs); strings.Contains(txt, "stuck") {
		t.Errorf("quickstart with pools apart: status mentions a stuck pause:\n%s", txt)
	}
}
