package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Long values are clipped in messages: a quoted one keeps its quotes, a run keeps the
// message's punctuation after it, multi-byte characters are not cut, short ones stay.
func TestClipLong(t *testing.T) {
	t.Parallel()
	x := strings.Repeat("x", 1000)
	for _, tc := range []struct{ in, want string }{
		{`name "ab": bad`, `name "ab": bad`},
		{`name "` + x + `": bad`, `name "` + x[:60] + `…" (1,000 bytes): bad`},
		{`--set a=` + x + `: bad`, `--set a=` + x[:58] + `… (1,002 bytes): bad`},
		{`name "` + strings.Repeat("é", 300) + `": bad`, `name "` + strings.Repeat("é", 30) + `…" (600 bytes): bad`},
	} {
		if got := clipLong(tc.in); got != tc.want {
			t.Errorf("clipLong(%.40q...) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A megabyte value in a spec comes back as a short message that still names the file,
// line, column and field (issue 38: error messages echoed 1 MB values in full).
func TestLongValueErrorsAreShort(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 1<<20)
	for _, text := range []string{
		"name: " + big + "\n",
		"switch: {TotalSharedBufferSize: " + big + "}\n",
		"sweep: {grid: {switch.LossyAlpha: [1, " + big + "]}}\n",
		"objective: {metric: " + big + "}\n",
		"replicates: " + big + "\n",
	} {
		spec := filepath.Join(t.TempDir(), "big.yaml")
		os.WriteFile(spec, []byte(text), 0o644)
		var stdout, stderr bytes.Buffer
		code := mainWithArgs(context.Background(), []string{"validate", spec}, &stdout, &stderr)
		first, _, _ := strings.Cut(stderr.String(), "\n")
		if code != 2 || stderr.Len() > 2000 || !strings.HasPrefix(first, "rocesweep: "+spec+":1:") || !strings.Contains(first, "(1,048,576 bytes)") {
			t.Errorf("%.40q...: exit %d, %d bytes of stderr:\n%.500s", text, code, stderr.Len(), stderr.String())
		}
	}
}
