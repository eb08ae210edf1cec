package report

import "testing"

// Backquoted commands in the page's sentences are set as code, and everything is escaped.
func TestCodeSpans(t *testing.T) {
	for in, want := range map[string]string{
		"run `rocesweep run SPEC --select` again": "run <code>rocesweep run SPEC --select</code> again",
		"a `<b>` c & d":        "a <code>&lt;b&gt;</code> c &amp; d",
		"an odd ` backquote <": "an odd ` backquote &lt;",
	} {
		if got := string(codeSpans(in)); got != want {
			t.Errorf("codeSpans(%q) = %q, want %q", in, got, want)
		}
	}
}
