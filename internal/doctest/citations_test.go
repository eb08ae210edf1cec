package doctest

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCitations resolves every citation of the model reference in the repository (Go
// sources, error messages, README, configs, scripts and the docs pages themselves) to a
// heading of docs/. See the grammar at the top of citations.go.
func TestCitations(t *testing.T) {
	root := Root(t)
	pages := map[string]*Page{}
	for _, name := range append(Pages, "README.md") {
		p, err := LoadPage(root, name)
		if err != nil {
			t.Fatal(err)
		}
		pages[name] = p
	}
	files, err := Files(root)
	if err != nil {
		t.Fatal(err)
	}
	resolved := 0
	for _, f := range files {
		data := ReadText(filepath.Join(root, f))
		if data == nil {
			continue
		}
		for _, c := range Scan(f, data) {
			if c.Err != "" {
				t.Errorf("%s:%d: %s: %s", c.File, c.Line, c.Ref.Text, c.Err)
				continue
			}
			if msg := pages[c.Ref.Page].Resolve(c.Ref); msg != "" {
				page := "docs/" + c.Ref.Page
				if c.Ref.Page == "README.md" {
					page = "README.md"
				}
				t.Errorf("%s:%d: %s: %s\n\tcite a heading that exists in %s (a model page's § numbers are the spec's), or add the section there",
					c.File, c.Line, c.Ref.Text, msg, page)
				continue
			}
			resolved++
		}
	}
	t.Logf("%d citations in %d files resolved", resolved, len(files))
	if resolved == 0 {
		t.Error("no citation found: the scanner is broken")
	}
}

// TestAnchors: every citable heading of docs/ starts with its stable anchor, so that
// docs/switch.md#s4.4, #s11-rule-5 and #dc-3 keep working when a heading's words change.
func TestAnchors(t *testing.T) {
	root := Root(t)
	for _, name := range Pages {
		p, err := LoadPage(root, name)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range p.WantIDs() {
			if h := p.Headings[i]; h.ID != want {
				t.Errorf("docs/%s:%d: heading %q has anchor %q, want %q: start it with <a id=%q></a>", name, h.Line, h.Text, h.ID, want, want)
			}
		}
	}
}

// TestScan pins the citation grammar: what is read as a citation, which page a bare
// reference means, and which citations fail.
func TestScan(t *testing.T) {
	root := Root(t)
	pages := map[string]*Page{}
	for _, name := range append(Pages, "README.md") {
		p, err := LoadPage(root, name)
		if err != nil {
			t.Fatal(err)
		}
		pages[name] = p
	}
	// Pages that must not resolve: a file name that is no documentation page, a link to
	// a missing one, and the team's style guide, which users do not have. Their names are
	// joined here so that no literal reads as a citation of a page the repository lacks.
	const md = ".md"
	mdFile, missing, style := "a"+md, "nothing"+md, "style"+md
	cases := []struct {
		file, text string
		want       []string // "page ref" of each citation, "!" prefix when it must fail
	}{
		{"a.go", "// the limit (switch.md §4.4)", []string{"switch.md §4.4"}},
		{"a.go", "// switch.md §4.9", []string{"!switch.md §4.9"}},
		{"a.go", `"negative size (nic.md §15 rule 5)"`, []string{"nic.md §15 rule 5"}},
		{"a.go", "// nic.md §15 rule 9", []string{"!nic.md §15 rule 9"}},
		{"a.go", "// switch.md §1, §11 rule 2, DC-21", []string{"switch.md §1", "switch.md §11 rule 2", "switch.md DC-21"}},
		{"a.go", "// switch.md §9-10", []string{"switch.md §9", "switch.md §10"}},
		{"a.go", "// nic.md §17-19", []string{"nic.md §17", "nic.md §18", "!nic.md §19"}},
		{"a.go", "// nic.md §3, §18 DC-3", []string{"nic.md §3", "nic.md §18", "nic.md DC-3"}},
		{"a.go", "// records.md RC-3: first row", []string{"records.md RC-3"}},
		{"a.go", "// RC-30", []string{"!records.md RC-30"}},
		{"a.go", `// design.md "The engine"`, []string{"design.md The engine"}},
		{"a.go", `// design.md "The motor"`, []string{"!design.md The motor"}},
		{"a.go", "// see spec/switch.md", []string{"!switch.md"}},
		{"a.go", "// " + style + " §5, spec/nic.md §4", []string{"!" + style, "!nic.md"}},
		{"a.go", "// " + style + " §5", []string{"!" + style}},
		{"a.go", "// §4.4 here", []string{"!§4.4"}},
		{"model/switchdev/a.go", "// §4.4 here", []string{"switch.md §4.4"}},
		{"model/nic/a.go", "// DC-15", []string{"nic.md DC-15"}},
		{"a.go", "// DC-15", []string{"switch.md DC-15"}},
		{"a.go", "// see configs/size-cdf/README.md and README.md", nil},
		{"a.go", "// capped (switch.md §4.1,\n// §5.2). More", []string{"switch.md §4.1", "switch.md §5.2"}},
		{"a.go", "// (design.md\n// \"Runner guarantees\")", []string{"design.md Runner guarantees"}},
		{"a.go", "// pause (switch.md §7.1), refresh (§7.2)\n// and headroom (§4.6 condition 1)", []string{"switch.md §7.1", "switch.md §7.2", "switch.md §4.6"}},
		{"a.go", "// pause (switch.md §7.1)\n\n// a new paragraph: §4.6", []string{"switch.md §7.1", "!§4.6"}},
		{mdFile, "| a | switch.md §4.4 |\n| b | §4.5 |", []string{"switch.md §4.4", "!§4.5"}},
		{mdFile, "[the switch](switch.md) and [x](docs/" + missing + ")", []string{"switch.md", "!" + missing}},
		{mdFile, "[rule 5](docs/switch.md#s11-rule-5), [x](nic.md#s19), [y](nic.md#frames)", []string{"switch.md #s11-rule-5", "!nic.md #s19", "nic.md"}},
		{"a.go", `// README "The study library" and README's "Install"`, []string{"README.md The study library", "README.md Install"}},
		{"a.go", `"(README \"Reliability\")"`, []string{"!README.md Reliability"}},
	}
	for _, c := range cases {
		var got []string
		for _, ci := range Scan(c.file, []byte(c.text)) {
			r := ci.Ref
			s := r.Page + " "
			switch {
			case r.Section != "" && r.Rule > 0:
				s += "§" + r.Section + " rule " + strconv.Itoa(r.Rule)
			case r.Section != "":
				s += "§" + r.Section
			case r.Anchor != "":
				s += r.Anchor
			case r.ID != "":
				s += "#" + r.ID
			default:
				s += r.Name
			}
			s = strings.TrimSpace(s)
			if ci.Err != "" || (r.Page != "" && pages[r.Page] != nil && pages[r.Page].Resolve(r) != "") {
				s = "!" + s
			}
			got = append(got, s)
		}
		if strings.Join(got, " | ") != strings.Join(c.want, " | ") {
			t.Errorf("%s %q:\n got  %q\n want %q", c.file, c.text, got, c.want)
		}
	}
}
