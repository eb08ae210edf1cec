package report_test

import (
	"flag"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/fabric"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/launch"
	"github.com/rocesweep/rocesweep/sweep/specfile"
)

// update rewrites the generated sections of the docs: go test ./report -run Docs -update
var update = flag.Bool("update", false, "rewrite the generated sections of docs/spec.md and docs/schema.md")

// generated are the generated sections of the docs: the page and the marker name.
var generated = []struct{ page, name string }{{"../docs/spec.md", "defaults"}, {"../docs/schema.md", "schema"}}

// recordTables are the record tables a sweep writes, with their row types.
var recordTables = launch.RecordTableSchemas()

// defaultsTable is the markdown table of every attribute of config.Schema (the source of
// `rocesweep defaults`).
func defaultsTable() string {
	var b strings.Builder
	b.WriteString("| path | type | unit | default | description |\n|---|---|---|---|---|\n")
	for _, a := range config.Schema() {
		doc := a.Doc
		if len(a.Enum) > 0 {
			doc = strings.TrimSpace("one of " + strings.Join(a.Enum, ", ") + "; " + doc)
		}
		unit := a.Unit
		if unit == "" {
			unit = "-"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | `%s` | %s |\n", a.Path, a.Type, unit, cellEscape(a.Default), cellEscape(doc))
	}
	return b.String()
}

func cellEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// parquetType names the Parquet column type of a row field.
func parquetType(t reflect.Type) string {
	opt := ""
	if t.Kind() == reflect.Pointer {
		t, opt = t.Elem(), ", nullable"
	}
	names := map[reflect.Kind]string{reflect.String: "string", reflect.Bool: "boolean", reflect.Int32: "int32",
		reflect.Int64: "int64", reflect.Float64: "double"}
	return names[t.Kind()] + opt
}

// schemaTables is the markdown of the jobs table and every record table.
func schemaTables() string {
	var b strings.Builder
	b.WriteString("**jobs** — one row per job:\n\n| column | type |\n|---|---|\n")
	b.WriteString("| `job_id` | string |\n| `status` | string: ok, failed, timeout, invalid |\n| `error` | string |\n")
	b.WriteString("| `replicate` | int64 |\n| `seed` | int64 |\n")
	b.WriteString("| one column per swept parameter, named by its short canonical path with `.` → `_` (`switch_LossyAlpha`, however the spec spelled it; see Column names in the spec reference) | bytes int64 (B), rates double (bit/s), times double (s), vectors string |\n")
	st := reflect.TypeFor[stats.Summary]()
	for i := 0; i < st.NumField(); i++ {
		f := st.Field(i)
		fmt.Fprintf(&b, "| `%s` | %s, null unless status is ok |\n", f.Tag.Get("parquet"), parquetType(f.Type))
	}
	for _, t := range recordTables {
		fmt.Fprintf(&b, "\n**%s**: ", t.Name)
		cols := t.Columns()
		for i, c := range cols {
			if i > 0 {
				b.WriteString(", ")
			}
			ft := t.Type.Field(i).Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			typ := parquetType(ft)
			if t.Nullable(i) { // a pointer, or a float64 whose NaN is written as null
				typ = "nullable " + typ
			}
			fmt.Fprintf(&b, "`%s` %s", c, typ)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// section replaces (or returns) the text between <!-- BEGIN name --> and <!-- END name -->.
func section(doc, name, body string) (string, string, error) {
	begin, end := "<!-- BEGIN "+name+" -->\n", "<!-- END "+name+" -->"
	i := strings.Index(doc, begin)
	j := strings.Index(doc, end)
	if i < 0 || j < i {
		return "", "", fmt.Errorf("lacks the markers %q ... %q", strings.TrimSpace(begin), end)
	}
	cur := doc[i+len(begin) : j]
	return doc[:i+len(begin)] + body + doc[j:], cur, nil
}

// TestDocsTables fails when the generated tables of docs/spec.md (every attribute) and
// docs/schema.md (every table and column) differ from the code; run
// `go test ./report -run Docs -update` to rewrite them and review the diff.
func TestDocsTables(t *testing.T) {
	if got, want := tableNames(), launch.RecordTables(); !slices.Equal(got, want) {
		t.Fatalf("record tables here %v, sweep writes %v", got, want)
	}
	bodies := map[string]string{"defaults": defaultsTable(), "schema": schemaTables()}
	for _, g := range generated {
		data, err := os.ReadFile(g.page)
		if err != nil {
			t.Fatal(err)
		}
		doc, cur, err := section(string(data), g.name, bodies[g.name])
		if err != nil {
			t.Fatalf("%s: %v", g.page, err)
		}
		if cur != bodies[g.name] && !*update {
			t.Errorf("%s: section %q is out of date with the code; run: go test ./report -run Docs -update", g.page, g.name)
		}
		if *update && doc != string(data) {
			if err := os.WriteFile(g.page, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func tableNames() []string {
	var out []string
	for _, t := range recordTables {
		out = append(out, t.Name)
	}
	return out
}

// Every yaml block of the spec reference and of the studies page plans (with the
// simulator's own validation, as `rocesweep validate` does) and, when its first line
// says "# plans N jobs", plans exactly N valid jobs: the documented sweep language is the
// one that runs.
func TestDocsSpecExamples(t *testing.T) {
	blocks := 0
	counted := 0
	for _, page := range []string{"../docs/spec.md", "../docs/studies.md"} {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(page, "../")
		for _, part := range strings.Split(string(data), "```yaml\n")[1:] {
			block, _, ok := strings.Cut(part, "\n```")
			if !ok {
				t.Fatalf("%s: unterminated yaml block:\n%s", name, part)
			}
			blocks++
			s, err := specfile.Parse(name, []byte(block), nil)
			if err != nil {
				t.Errorf("%s yaml block %d: %v\n%s", name, blocks, err, block)
				continue
			}
			p, err := sweep.Expand(s, fabric.Validate)
			if err != nil {
				t.Errorf("%s yaml block %d: %v", name, blocks, err)
				continue
			}
			if bad := p.Invalid(); len(bad) > 0 {
				t.Errorf("%s yaml block %d: %v", name, blocks, p.InvalidError(bad))
			}
			var want int
			if _, err := fmt.Sscanf(block, "# plans %d jobs", &want); err == nil {
				counted++
				if len(p.Jobs) != want {
					t.Errorf("%s yaml block %d says %d jobs, plans %d:\n%s", name, blocks, want, len(p.Jobs), block)
				}
			}
		}
	}
	if counted < 4 {
		t.Errorf("%d yaml blocks in the spec reference, %d with a job count; want the ranges, constraint, sample and zip examples", blocks, counted)
	}
}

// wantKeys returns the keys an error message lists, as sweep reports an unknown key of a
// block: "sweep.bogus: unknown key (want grid, zip, ...)", "...; tiers are rack, fabric, spine".
func wantKeys(t *testing.T, spec string) []string {
	t.Helper()
	_, err := specfile.Parse("keys.yaml", []byte(spec), nil)
	if err == nil {
		t.Fatalf("%s: parsed; want an unknown-key error that lists the keys", spec)
	}
	m := regexp.MustCompile(`(?:\(want |; tiers are )([a-z_]+(?:, [a-z_]+)*)`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("%s: error %q lists no keys", spec, err)
	}
	return strings.Split(m[1], ", ")
}

// TestDocsNameEverything: a reader finds every spec key, every attribute and every column
// of a results directory in the reference pages by its name (every command and flag is in
// docs/cli.md, checked by cmd/rocesweep's TestCLIPage). A key or column added to the code
// without a word in the docs fails here.
func TestDocsNameEverything(t *testing.T) {
	read := func(pages ...string) string {
		var b strings.Builder
		for _, p := range pages {
			data, err := os.ReadFile("../docs/" + p)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(data)
		}
		return b.String()
	}
	spec := read("spec.md", "studies.md")
	columns := read("schema.md", "records.md", "results.md")
	named := func(text, name string) bool {
		re := regexp.MustCompile(`(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(name) + `($|[^A-Za-z0-9_])`)
		return re.MatchString(text)
	}
	keys := map[string][]string{
		"":                  config.TopKeys(),
		"sweep":             wantKeys(t, "sweep: {bogus: 1}"),
		"sweep.grid.<axis>": wantKeys(t, "sweep: {grid: {switch.LossyAlpha: {bogus: 1}}}"),
		"sweep.sample":      wantKeys(t, "sweep: {grid: {switch.LossyAlpha: {from: 1, to: 2}}, sample: {bogus: 1}}"),
		"objective":         wantKeys(t, "objective: {bogus: 1}"),
		"objective.then":    wantKeys(t, "objective: {metric: drops_total, then: {bogus: 1}}"),
		"select":            wantKeys(t, "select: {bogus: 1}"),
		"tiers":             wantKeys(t, "tiers: {bogus: 1}"),
	}
	n := 0
	for block, ks := range keys {
		for _, k := range ks {
			n++
			if !named(spec, k) {
				t.Errorf("spec key %q (of %q) is named nowhere in docs/spec.md or docs/studies.md", k, block)
			}
		}
	}
	for _, a := range config.Schema() {
		n++
		if !strings.Contains(spec, "`"+a.Path+"`") {
			t.Errorf("attribute %s is not in docs/spec.md's table: go test ./report -run Docs -update", a.Path)
		}
	}
	st := reflect.TypeFor[stats.Summary]()
	for i := 0; i < st.NumField(); i++ {
		n++
		if c := st.Field(i).Tag.Get("parquet"); !named(columns, c) {
			t.Errorf("jobs column %s is named nowhere in docs/schema.md, records.md or results.md", c)
		}
	}
	for _, tb := range recordTables {
		for _, c := range append([]string{tb.Name}, tb.Columns()...) {
			n++
			if !named(columns, c) {
				t.Errorf("%s column %s is named nowhere in docs/schema.md, records.md or results.md", tb.Name, c)
			}
		}
	}
	t.Logf("%d spec keys, attributes, tables and columns named in docs/", n)
}
