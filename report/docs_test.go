package report_test

import (
	"flag"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/fabric"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/sweep"
)

// update rewrites the generated README sections: go test ./report -run README -update
var update = flag.Bool("update", false, "rewrite the generated sections of README.md")

const readmePath = "../README.md"

// recordTables are the record tables a sweep writes, with their row types.
var recordTables = sweep.RecordTableSchemas()

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
		return "", "", fmt.Errorf("README.md lacks the markers %q ... %q", strings.TrimSpace(begin), end)
	}
	cur := doc[i+len(begin) : j]
	return doc[:i+len(begin)] + body + doc[j:], cur, nil
}

// TestREADMETables fails when the generated README tables differ from the code; run
// `go test ./report -run README -update` to rewrite them and review the diff.
func TestREADMETables(t *testing.T) {
	if got, want := tableNames(), sweep.RecordTables(); !slices.Equal(got, want) {
		t.Fatalf("record tables here %v, sweep writes %v", got, want)
	}
	data, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, s := range []struct{ name, body string }{{"defaults", defaultsTable()}, {"schema", schemaTables()}} {
		next, cur, err := section(doc, s.name, s.body)
		if err != nil {
			t.Fatal(err)
		}
		if cur != s.body && !*update {
			t.Errorf("README.md section %q is out of date with the code; run: go test ./report -run README -update", s.name)
		}
		doc = next
	}
	if *update && doc != string(data) {
		if err := os.WriteFile(readmePath, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
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

// Every yaml block of the README's spec reference plans (with the simulator's own
// validation, as `rocesweep validate` does) and, when its first line says "# plans N
// jobs", plans exactly N valid jobs: the documented sweep language is the one that runs.
func TestREADMESpecExamples(t *testing.T) {
	data, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start := strings.Index(text, "\n## Spec reference")
	if start < 0 {
		t.Fatal("README has no Spec reference section")
	}
	section := text[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	blocks := 0
	counted := 0
	for _, part := range strings.Split(section, "```yaml\n")[1:] {
		block, _, ok := strings.Cut(part, "\n```")
		if !ok {
			t.Fatalf("unterminated yaml block:\n%s", part)
		}
		blocks++
		s, err := sweep.ParseSpec("README.md", []byte(block), nil)
		if err != nil {
			t.Errorf("README yaml block %d: %v\n%s", blocks, err, block)
			continue
		}
		p, err := sweep.Expand(s, fabric.Validate)
		if err != nil {
			t.Errorf("README yaml block %d: %v", blocks, err)
			continue
		}
		if bad := p.Invalid(); len(bad) > 0 {
			t.Errorf("README yaml block %d: %v", blocks, sweep.InvalidError(p, bad))
		}
		var want int
		if _, err := fmt.Sscanf(block, "# plans %d jobs", &want); err == nil {
			counted++
			if len(p.Jobs) != want {
				t.Errorf("README yaml block %d says %d jobs, plans %d:\n%s", blocks, want, len(p.Jobs), block)
			}
		}
	}
	if counted < 4 {
		t.Errorf("%d yaml blocks in the spec reference, %d with a job count; want the ranges, constraint, sample and zip examples", blocks, counted)
	}
}
