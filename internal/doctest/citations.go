package doctest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Citations of the model reference, as the code, error messages, README, configs and
// the docs themselves write them:
//
//	switch.md §4.4          a section (the docs keep the spec's numbering)
//	nic.md §15 rule 5       a numbered rule inside a section
//	switch.md §9-10         a range of sections (each must exist)
//	switch.md §1, §11 rule 2, DC-21   a list: later items belong to the same page
//	records.md RC-3         a named design choice (a DC-n or RC-n heading)
//	design.md "The engine"  a section by its name (a prefix of the heading)
//	[text](switch.md)       a markdown link: the page must exist
//	switch.md#s4.4          a link to a stable anchor (#s4.4, #s11-rule-5, #dc-3)
//	§4.4, DC-17, RC-10      bare: the page named last before it in its paragraph (the
//	                        lines of one comment or text block, table rows excepted),
//	                        else the file's home page (homePages);
//	                        RC-n is always records.md, DC-n otherwise switch.md (nic.md's
//	                        design choices are cited as nic.md §18 DC-n)
//
// Other words after a reference ("§12.3 rows 175/176", "§4.6 condition 1") are prose and
// not checked. `spec/X.md` is refused: the spec is not in the repository; cite docs pages.

// Pages are the pages of docs/ that citations may name: the model's reference (numbered
// as the spec), then the library around it (tutorial, how-to guides, reference,
// explanation), cited by a heading's name: reliability.md "Limits".
var Pages = []string{"switch.md", "nic.md", "records.md", "results.md", "design.md", "statistics.md",
	"tutorial.md", "cluster.md", "ci.md", "reading-results.md", "reliability.md",
	"cli.md", "spec.md", "studies.md", "schema.md", "model.md", "performance.md"}

// homePages gives the page a bare § or DC-n citation means in files under a directory.
var homePages = map[string]string{
	"model/switchdev/":   "switch.md",
	"model/nic/":         "nic.md",
	"model/stats/":       "records.md",
	"docs/switch.md":     "switch.md",
	"docs/nic.md":        "nic.md",
	"docs/records.md":    "records.md",
	"docs/results.md":    "results.md",
	"docs/design.md":     "design.md",
	"docs/statistics.md": "statistics.md",
	"selection/":         "statistics.md",
}

// Page is a parsed docs page: its headings.
type Page struct {
	Name     string
	Headings []Heading
}

// Heading is one markdown heading of a page.
type Heading struct {
	Level   int
	Text    string // without the leading #s and the anchor
	ID      string // the explicit anchor <a id="s4.4"></a> the heading starts with, if any
	Section string // "4.4" for "§4.4 ...", "" otherwise
	Anchor  string // "DC-3" for "DC-3 ...", "Rule 5" for "Rule 5 ...", "" otherwise
	Line    int
	Body    []string // lines up to the next heading
}

var (
	headingRE = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*$`)
	secHeadRE = regexp.MustCompile(`^§([0-9]+(?:\.[0-9]+)*)\b`)
	ancHeadRE = regexp.MustCompile(`^((?:DC|RC)-[0-9]+|Rule [0-9]+)\b`)
	anchorRE  = regexp.MustCompile(`^<a id="([^"]+)"></a>\s*`)
)

// LoadPage parses docs/name under root; "README.md" is the repository's README.
func LoadPage(root, name string) (*Page, error) {
	path := filepath.Join(root, "docs", name)
	if name == "README.md" {
		path = filepath.Join(root, name)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p := &Page{Name: name}
	fence := false
	for i, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
		}
		m := headingRE.FindStringSubmatch(line)
		if fence || m == nil {
			if n := len(p.Headings); n > 0 {
				p.Headings[n-1].Body = append(p.Headings[n-1].Body, line)
			}
			continue
		}
		h := Heading{Level: len(m[1]), Text: m[2], Line: i + 1}
		if a := anchorRE.FindStringSubmatch(h.Text); a != nil {
			h.ID, h.Text = a[1], strings.TrimPrefix(h.Text, a[0])
		}
		if s := secHeadRE.FindStringSubmatch(h.Text); s != nil {
			h.Section = s[1]
		}
		if a := ancHeadRE.FindStringSubmatch(h.Text); a != nil {
			h.Anchor = a[1]
		}
		p.Headings = append(p.Headings, h)
	}
	return p, nil
}

// WantIDs returns, for each heading that can be cited, the anchor it must carry so that
// links to it stay stable when its words change: "s4.4" for §4.4, "s11-rule-5" for rule 5
// of §11, "dc-3" for DC-3. Headings that cannot be cited map to "".
func (p *Page) WantIDs() []string {
	out := make([]string, len(p.Headings))
	sec := ""
	for i, h := range p.Headings {
		switch {
		case h.Section != "":
			sec = h.Section
			out[i] = "s" + h.Section
		case strings.HasPrefix(h.Anchor, "Rule ") && sec != "":
			out[i] = "s" + sec + "-rule-" + strings.TrimPrefix(h.Anchor, "Rule ")
		case h.Anchor != "":
			out[i] = strings.ToLower(h.Anchor)
		}
	}
	return out
}

// section returns the index of the heading of section s, or -1.
func (p *Page) section(s string) int {
	for i, h := range p.Headings {
		if h.Section == s {
			return i
		}
	}
	return -1
}

// hasRule reports whether section heading i holds rule n: a "Rule n" heading below it
// (before the next heading of its level or higher), or a line starting "**Rule n".
func (p *Page) hasRule(i, n int) bool {
	want := "Rule " + strconv.Itoa(n)
	for j := i; j < len(p.Headings); j++ {
		h := p.Headings[j]
		if j > i && h.Level <= p.Headings[i].Level {
			break
		}
		if j > i && h.Anchor == want {
			return true
		}
		for _, l := range h.Body {
			if strings.HasPrefix(strings.TrimSpace(l), "**"+want) {
				return true
			}
		}
	}
	return false
}

// Resolve checks one reference of a citation against the page and returns "" or what is
// missing.
func (p *Page) Resolve(r Ref) string {
	switch {
	case r.ID != "":
		for _, h := range p.Headings {
			if h.ID == r.ID {
				return ""
			}
		}
		return fmt.Sprintf("no anchor #%s in docs/%s", r.ID, p.Name)
	case r.Section != "":
		i := p.section(r.Section)
		if i < 0 {
			return fmt.Sprintf("no section §%s in docs/%s", r.Section, p.Name)
		}
		if r.Rule > 0 && !p.hasRule(i, r.Rule) {
			return fmt.Sprintf("no rule %d in docs/%s §%s", r.Rule, p.Name, r.Section)
		}
	case r.Anchor != "":
		for _, h := range p.Headings {
			if h.Anchor == r.Anchor {
				return ""
			}
		}
		return fmt.Sprintf("no heading %s in docs/%s", r.Anchor, p.Name)
	case r.Name != "":
		for _, h := range p.Headings {
			t := strings.TrimSpace(secHeadRE.ReplaceAllString(h.Text, ""))
			if strings.HasPrefix(strings.ToLower(t), strings.ToLower(r.Name)) {
				return ""
			}
		}
		where := "docs/" + p.Name
		if p.Name == "README.md" {
			where = p.Name
		}
		return fmt.Sprintf("no heading named %q in %s", r.Name, where)
	}
	return ""
}

// Ref is one reference of a citation.
type Ref struct {
	Page    string // "switch.md"; "" until resolved for a bare reference
	Section string // "4.4"
	Rule    int    // "rule 5" after the section; 0 = none
	Anchor  string // "DC-3", "RC-12"
	Name    string // a quoted section name
	ID      string // a link fragment: switch.md#s4.4
	Text    string // as written, for messages
}

// Citation is a reference found in a file.
type Citation struct {
	File string // relative to the repository root
	Line int
	Ref  Ref
	Err  string // a problem found while reading it (unknown page, spec/ path)
}

func (c Citation) String() string { return fmt.Sprintf("%s:%d: %s", c.File, c.Line, c.Ref.Text) }

var (
	pageRE = regexp.MustCompile(`(?:\b[A-Za-z0-9_./-]*/)?\b([a-z][a-z0-9_-]*)\.md\b`)
	refRE  = regexp.MustCompile(`^§([0-9]+(?:\.[0-9]+)*)(?:-([0-9]+))?(?:\s+rules?\s+([0-9]+)(?:\s*-\s*([0-9]+))?)?|^((?:DC|RC)-[0-9]+)`)
	sepRE  = regexp.MustCompile(`^(?:\s*[,;]\s*|\s+and\s+|\s+)`)
	bareRE = regexp.MustCompile(`§([0-9]+(?:\.[0-9]+)*)(?:-([0-9]+))?(?:\s+rules?\s+([0-9]+)(?:\s*-\s*([0-9]+))?)?|\b((?:DC|RC)-[0-9]+)\b`)
	fragRE = regexp.MustCompile(`^#(s[0-9]+(?:\.[0-9]+)*(?:-rule-[0-9]+)?|dc-[0-9]+|rc-[0-9]+)\b`)
	nameRE = regexp.MustCompile(`^\s+"([A-Z][^"\n]*)("|$)`)
	// readmeRE is a citation of a README section by its name: README "The study library".
	readmeRE = regexp.MustCompile(`\bREADME(?:'s)?,?\s+\\?"([A-Z][^"\\\n]*)\\?"`)
)

// Scan returns the citations of one file (file is its path from the repository root,
// which picks its home page for bare references).
func Scan(file string, data []byte) []Citation {
	home := ""
	for prefix, page := range homePages {
		if strings.HasPrefix(file, prefix) {
			home = page
		}
	}
	lines := strings.Split(string(data), "\n")
	var out []Citation
	para := "" // the last page named in the paragraph so far: bare references after it mean it
	for ln, line := range lines {
		add := func(r Ref, err string) {
			out = append(out, Citation{File: file, Line: ln + 1, Ref: r, Err: err})
		}
		consumed := make([]bool, len(line)+1)
		if !continues(lines, ln) {
			para = ""
		}
		lastOnLine := ""
		for _, m := range pageRE.FindAllStringSubmatchIndex(line, -1) {
			full := line[m[0]:m[1]]
			name := line[m[2]:m[3]] + ".md"
			bad := false // the page is refused; its references are read but not reported
			switch dir := strings.TrimSuffix(full, name); {
			case dir == "spec/":
				add(Ref{Page: name, Text: full}, fmt.Sprintf("cites %s, which is not in the repository: cite the docs page, %s (docs/%s)", full, name, name))
				bad = true
			case dir != "" && dir != "docs/" && dir != "../docs/" && dir != "./":
				continue // a file path (configs/size-cdf/README.md), not a citation
			case !isPage(name):
				add(Ref{Page: name, Text: full}, fmt.Sprintf("cites %s, which is not a page of docs/ (%s)", name, strings.Join(Pages, ", ")))
				bad = true
			}
			rest, pos := line[m[1]:], m[1]
			if !bad {
				lastOnLine = name
			}
			if !bad && scanNamed(lines, ln, name, rest, &out) {
				continue
			}
			n := 0
			for {
				sep := sepRE.FindString(rest)
				r := refRE.FindStringSubmatchIndex(rest[len(sep):])
				if r == nil || (sep == "" && n > 0) {
					break
				}
				item := rest[len(sep):]
				for _, ref := range refsOf(item, r) {
					if bad {
						break
					}
					ref.Page, ref.Text = name, name+" "+item[r[0]:r[1]]
					if strings.HasPrefix(ref.Anchor, "RC-") {
						ref.Page = "records.md" // "switch.md §3.1, RC-7"
					}
					add(ref, "")
				}
				start := pos + len(sep)
				for i := start; i < start+r[1]; i++ {
					consumed[i] = true
				}
				pos = start + r[1]
				rest = line[pos:]
				n++
			}
			if n == 0 && !bad {
				add(Ref{Page: name, Text: full}, "")
			}
		}
		// Bare references: not consumed by a page's list above.
		for _, m := range bareRE.FindAllStringSubmatchIndex(line, -1) {
			if consumed[m[0]] {
				continue
			}
			page := pageBefore(line, m[0])
			if page == "" {
				page = para
			}
			if page == "" {
				page = home
			}
			for _, ref := range refsOf(line, m) {
				ref.Text = line[m[0]:m[1]]
				ref.Page = page
				switch {
				case strings.HasPrefix(ref.Anchor, "RC-"):
					ref.Page = "records.md"
				case strings.HasPrefix(ref.Anchor, "DC-") && ref.Page == "":
					ref.Page = "switch.md"
				}
				msg := ""
				if ref.Page == "" {
					msg = fmt.Sprintf("names no page: write switch.md %s, nic.md %s, records.md %s... (a reference without a page is read against the page named before it in its paragraph, or the file's home page: %s)",
						ref.Text, ref.Text, ref.Text, homeList())
				}
				add(ref, msg)
			}
		}
		for _, m := range readmeRE.FindAllStringSubmatch(line, -1) {
			add(Ref{Page: "README.md", Name: m[1], Text: `README "` + m[1] + `"`}, "")
		}
		if lastOnLine != "" {
			para = lastOnLine
		}
	}
	for i := range out {
		out[i].File = file // scanNamed leaves it empty
	}
	return out
}

// scanNamed handles what may follow a page other than a list of sections: a markdown
// link (switch.md#… or [..](switch.md)), a quoted section name on this line or wrapped
// onto the next. It reports whether it took the citation.
func scanNamed(lines []string, ln int, name, rest string, out *[]Citation) bool {
	line := lines[ln]
	at := len(line) - len(rest) - len(name)
	add := func(line int, r Ref) { *out = append(*out, Citation{File: "", Line: line, Ref: r}) }
	if f := fragRE.FindStringSubmatch(rest); f != nil {
		add(ln+1, Ref{Page: name, ID: f[1], Text: name + "#" + f[1]}) // a link to a stable anchor
		return true
	}
	if strings.HasPrefix(rest, "#") || strings.HasPrefix(rest, ")") && at > 0 && line[at-1] == '(' {
		add(ln+1, Ref{Page: name, Text: name}) // a markdown link: the page must exist
		return true
	}
	if q := nameRE.FindStringSubmatch(strings.TrimPrefix(rest, ":")); q != nil {
		add(ln+1, Ref{Page: name, Name: q[1], Text: name + ` "` + q[1] + `"`})
		return true
	}
	if strings.TrimSpace(strings.Trim(rest, "(:;, ")) != "" {
		return false
	}
	if ln+1 < len(lines) {
		next := strings.TrimLeft(lines[ln+1], "\t /#*")
		if q := nameRE.FindStringSubmatch(" " + next); q != nil {
			add(ln+2, Ref{Page: name, Name: q[1], Text: name + ` "` + q[1] + `"`})
			return true
		}
	}
	return false
}

// continues reports whether line ln continues the paragraph of the line before: both
// are non-blank, both comment lines (//, #) or both not, and neither is a table row. A
// bare reference reads against the page last named in its paragraph, so a citation may
// wrap: "(switch.md §7.1, its refresh §7.2)" over two comment lines.
func continues(lines []string, ln int) bool {
	if ln == 0 {
		return false
	}
	kind := func(l string) (text string, comment bool) {
		t := strings.TrimSpace(l)
		for _, p := range []string{"//", "#"} {
			if strings.HasPrefix(t, p) && !strings.HasPrefix(t, "##") {
				return strings.TrimSpace(strings.TrimPrefix(t, p)), true
			}
		}
		return t, false
	}
	a, ca := kind(lines[ln-1])
	b, cb := kind(lines[ln])
	return a != "" && b != "" && ca == cb && !strings.HasPrefix(a, "|") && !strings.HasPrefix(b, "|")
}

// refsOf turns one match of refRE or bareRE (indexes into s) into references: a range
// §9-10 gives §9 and §10, "rules 2-4" gives rules 2, 3 and 4.
func refsOf(s string, m []int) []Ref {
	get := func(k int) string {
		if m[2*k] < 0 {
			return ""
		}
		return s[m[2*k]:m[2*k+1]]
	}
	if a := get(5); a != "" {
		return []Ref{{Anchor: a}}
	}
	sec, secTo, rule, ruleTo := get(1), get(2), get(3), get(4)
	var secs []string
	secs = append(secs, sec)
	if secTo != "" && !strings.Contains(sec, ".") {
		from, _ := strconv.Atoi(sec)
		to, _ := strconv.Atoi(secTo)
		for k := from + 1; k <= to && k-from < 50; k++ {
			secs = append(secs, strconv.Itoa(k))
		}
	}
	var out []Ref
	for _, s := range secs {
		if rule == "" {
			out = append(out, Ref{Section: s})
			continue
		}
		from, _ := strconv.Atoi(rule)
		to := from
		if ruleTo != "" {
			to, _ = strconv.Atoi(ruleTo)
		}
		for k := from; k <= to && k-from < 50; k++ {
			out = append(out, Ref{Section: s, Rule: k})
		}
	}
	return out
}

// pageBefore returns the docs page named last on line before position i.
func pageBefore(line string, i int) string {
	last := ""
	for _, m := range pageRE.FindAllStringSubmatchIndex(line[:i], -1) {
		if name := line[m[2]:m[3]] + ".md"; isPage(name) {
			last = name
		}
	}
	return last
}

func isPage(name string) bool {
	for _, p := range Pages {
		if p == name {
			return true
		}
	}
	return false
}

func homeList() string {
	var s []string
	for prefix, page := range homePages {
		if !strings.HasPrefix(prefix, "docs/") {
			s = append(s, prefix+" → "+page)
		}
	}
	return strings.Join(sortStrings(s), ", ")
}

func sortStrings(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

// skipDirs are not walked: version control, session notes, results and build output.
var skipDirs = map[string]bool{".git": true, "results": true, "runs": true, "node_modules": true}

// skipFiles are not scanned: the citation scanner and its test, whose comments, messages
// and cases show the grammar with placeholders and citations meant to fail.
var skipFiles = []string{"internal/doctest/citations.go", "internal/doctest/citations_test.go", "internal/doctest/links_test.go"}

// Files returns the text files of the repository that may hold citations, relative to
// root: every file except binaries, generated data and the directories of skipDirs.
func Files(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(rel) {
		case ".go", ".md", ".yaml", ".yml", ".sh", ".py", ".ipynb", ".json", ".txt", "":
		default:
			return nil
		}
		if strings.HasSuffix(rel, "go.sum") || strings.HasSuffix(rel, ".test") || slices.Contains(skipFiles, rel) {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > 4<<20 {
			return nil
		}
		out = append(out, rel)
		return nil
	})
	return out, err
}

// ReadText returns the file's content, or nil for a binary file.
func ReadText(path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil || bytes.IndexByte(data, 0) >= 0 {
		return nil
	}
	return data
}
