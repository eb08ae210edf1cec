package doctest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

// Links of the README and the docs pages: every relative markdown link must name a file
// or directory of the repository, and a link with a fragment (docs/spec.md#the-sweep-language,
// #reliability, switch.md#s4.4) a heading of that page, by GitHub's anchor for its text
// or by its explicit <a id>. Moving a section between pages breaks such links silently;
// TestLinks does not let it.

var (
	linkRE = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	idRE   = regexp.MustCompile(`<a id="([^"]+)"></a>`)
	tagRE  = regexp.MustCompile(`<[^>]+>`)
)

// Link is one relative markdown link found in a file.
type Link struct {
	File   string // relative to the repository root
	Line   int
	Target string // as written
}

func (l Link) String() string { return fmt.Sprintf("%s:%d: (%s)", l.File, l.Line, l.Target) }

// DocFiles are the markdown files whose links are checked: README.md and every .md file
// under docs/, relative to root.
func DocFiles(root string) ([]string, error) {
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	return files, err
}

// Links returns the relative links of a markdown file (outside code blocks and code spans).
func Links(file string, data []byte) []Link {
	var out []Link
	fence := false
	for i, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		line = regexp.MustCompile("`[^`]*`").ReplaceAllString(line, "")
		for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
			t := m[1]
			if strings.Contains(t, "://") || strings.HasPrefix(t, "mailto:") {
				continue
			}
			out = append(out, Link{File: file, Line: i + 1, Target: t})
		}
	}
	return out
}

// Anchors returns the fragments a markdown page answers to: GitHub's anchor of each
// heading's text (lower case, punctuation dropped, spaces to hyphens, -1, -2... for
// repeats) and every explicit <a id="...">.
func Anchors(data []byte) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fence := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		for _, m := range idRE.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
		h := headingRE.FindStringSubmatch(line)
		if fence || h == nil {
			continue
		}
		s := Slug(h[2])
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// Slug is GitHub's anchor for a heading's text.
func Slug(text string) string {
	text = tagRE.ReplaceAllString(text, "")
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(text)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Check returns "" when the link resolves under root, else what is wrong.
func (l Link) Check(root string) string {
	path, frag, _ := strings.Cut(l.Target, "#")
	target := l.File
	if path != "" {
		target = filepath.ToSlash(filepath.Join(filepath.Dir(l.File), path))
		if strings.HasPrefix(target, "../") {
			return fmt.Sprintf("%s points outside the repository", l.Target)
		}
	}
	info, err := os.Stat(filepath.Join(root, target))
	if err != nil {
		return fmt.Sprintf("no file %s", target)
	}
	if frag == "" {
		return ""
	}
	if info.IsDir() || !strings.HasSuffix(target, ".md") {
		return fmt.Sprintf("#%s: %s is not a markdown page", frag, target)
	}
	data, err := os.ReadFile(filepath.Join(root, target))
	if err != nil {
		return err.Error()
	}
	if !Anchors(data)[frag] {
		return fmt.Sprintf("no heading #%s in %s", frag, target)
	}
	return ""
}
