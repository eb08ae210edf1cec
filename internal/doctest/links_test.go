package doctest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinks resolves every relative link of README.md and docs/: the file, and the
// heading a fragment names.
func TestLinks(t *testing.T) {
	root := Root(t)
	files, err := DocFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range Links(f, data) {
			n++
			if msg := l.Check(root); msg != "" {
				t.Errorf("%s: %s", l, msg)
			}
		}
	}
	t.Logf("%d links in %d files resolved", n, len(files))
	if n < 100 {
		t.Errorf("%d links: the scanner is broken", n)
	}
}

// TestSlug pins GitHub's heading anchors for the kinds of headings the docs have.
func TestSlug(t *testing.T) {
	for text, want := range map[string]string{
		"Selecting the best point: `run --select`":  "selecting-the-best-point-run---select",
		"The study's question: `objective`":         "the-studys-question-objective",
		"Reading results with DuckDB and pandas":    "reading-results-with-duckdb-and-pandas",
		`<a id="s4.4"></a>§4.4 Lossy egress limits`: "44-lossy-egress-limits",
		"Stuck pauses (sizing condition 3)":         "stuck-pauses-sizing-condition-3",
		"1. Run the quickstart":                     "1-run-the-quickstart",
	} {
		if got := Slug(text); got != want {
			t.Errorf("Slug(%q) = %q, want %q", text, got, want)
		}
	}
	a := Anchors([]byte("# A\n## B\n## B\n```\n# C\n```\n## <a id=\"s1\"></a>§1 D\n"))
	for _, want := range []string{"a", "b", "b-1", "s1", "1-d"} {
		if !a[want] {
			t.Errorf("Anchors: no %q in %v", want, a)
		}
	}
	if a["c"] {
		t.Errorf("Anchors: a heading in a code block counted")
	}
}

// TestREADMECopies: the README's SQL blocks are copies of blocks of docs/ (the README
// shows the first queries a reader runs; the docs page that explains them is their
// home), equal line for line up to indentation, so that the two cannot drift apart.
func TestREADMECopies(t *testing.T) {
	root := Root(t)
	files, err := DocFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	blocks := func(f string) []string {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, part := range strings.Split(string(data), "```sql\n")[1:] {
			body, _, _ := strings.Cut(part, "```")
			var lines []string
			for _, l := range strings.Split(body, "\n") {
				lines = append(lines, strings.TrimSpace(l))
			}
			out = append(out, strings.TrimSpace(strings.Join(lines, "\n")))
		}
		return out
	}
	docs := map[string]string{}
	for _, f := range files[1:] {
		for _, b := range blocks(f) {
			docs[b] = f
		}
	}
	readme := blocks("README.md")
	if len(readme) == 0 {
		t.Fatal("README.md has no SQL block")
	}
	for i, b := range readme {
		if _, ok := docs[b]; !ok {
			t.Errorf("README.md's SQL block %d is no block of docs/: change the docs page's block and copy it to the README\n%s", i+1, b)
		}
	}
}
