// Package rocesweep_test holds the module's layering test, TestLayering: which of this
// module's packages may import which, in the style of go/build's deps_test.go. It lives
// at the module root, in a test-only package, because it is about every package and
// belongs to none (docs/design.md: "data flows one way"; issue 41 asks for a test).
//
// The test reads the import clauses of every non-test .go file in the module with
// go/parser (all build tags, as deps_test.go does, so a duckdb- or !unix-only import
// counts too; files marked //go:build ignore do not), and fails on any import of a
// package of this module that the table below does not allow, naming the edge. A new
// package fails the test until it has a row. Imports from _test.go files are not
// checked: a test may reach up (a package's test may link the model to compare with it).
package rocesweep_test

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// layers is the table of allowed imports, read as in go/build's deps_test.go:
//
//	a, b < c, d;
//
// means that c and d may import a and b and everything a and b may import. Each package
// appears on the right of exactly one rule. Names in capitals are groups, not packages:
// NONE is the empty set; MODEL is the whole model. Paths are relative to the module.
// Edges that the rules do not allow but that exist today are listed in knownBackEdges.
//
// The layers, bottom to top: the package model (model.Version alone, which every
// package may import); the model; leaves that know no model (process policy, the
// file-system rules); the libraries constraint and selection, beside the results
// directory's owner resultsdir (with its journal format, resultsdir/journal); the writer
// sink, which imports resultsdir, never the other way; the command back-ends export and
// slurm; sweep, in four layers (the spec sweep/specfile, the plan sweep, running it
// sweep/launch, the studies sweep/study); the readers report and compare; the command
// cmd/rocesweep (issue 41: model ← resultsdir ← sink ← sweep ← report/compare ← cmd). Test
// support and the helper commands under scripts/ have rows of their own.
const layers = `
	# The model's version (model.Version): a leaf that every package may import, since
	# naming the model's version links none of the model.
	NONE < model;

	# The model: the simulator and its pieces, at the bottom. It imports nothing of this
	# module outside model/.
	model < model/sim, model/pkt, model/internal/invariants, model/internal/ring, model/internal/intern;
	model/sim < model/config, model/stats;
	model/config < model/workload;
	model/config, model/stats < model/topo;
	model/sim, model/pkt, model/internal/ring < model/link;
	model/config, model/stats, model/link, model/internal/invariants, model/internal/intern < model/nic, model/switchdev;
	model/nic, model/switchdev, model/topo < model/explain;
	model/internal/invariants, model/nic, model/switchdev, model/topo, model/workload
	< model/fabric;
	model/explain, model/fabric < MODEL;

	# Leaves: process policy, the results directory's file-system rules, the confidence
	# intervals, the embedded study library. They know no model.
	model
	< resultsdir/dirfs, selection/ci, internal/buildinfo, internal/memory, configs;

	# The study's question (objective, selection settings) as a results directory
	# records it: a leaf, so that the manifest needs no selection procedure.
	model < question;

	# Libraries: the spec's expression language (it parses units with model/config) and
	# the selection rules.
	model/config < constraint;
	selection/ci, constraint, question < selection;

	# The results directory, its one owner: the journal's format (resultsdir/journal), then
	# layout, manifest, schemas, parts, status.
	resultsdir/dirfs < resultsdir/journal;
	resultsdir/journal, question, model/config, model/stats < resultsdir;

	# The writer of the results directory: it writes what resultsdir describes and reads.
	resultsdir < sink;

	# Command back-ends. slurm launches jobs and knows no model.
	resultsdir < resultsdir/export;
	resultsdir/dirfs < sweep/slurm;

	# sweep/specfile: a sweep spec parsed, with its overrides. sweep: the plan of a spec,
	# pure: it reads no directory and starts no process (sink is not below it).
	# sweep/launch runs a plan's jobs (runner, workers, spill, budgets, progress) and
	# writes through sink.
	MODEL, selection, resultsdir < sweep/specfile;
	sweep/specfile < sweep;
	sweep, internal/memory, sink < sweep/launch;
	# sweep/study: the studies that run rounds of jobs (a sequential selection, a
	# bisection) and state where one stands.
	sweep/launch < sweep/study;

	# The readers of results directories.
	sweep/study, selection/ci < report, compare;

	# The command.
	report, compare, resultsdir/export, sweep/slurm, internal/buildinfo, configs
	< cmd/rocesweep;

	# Test support, imported only by _test.go files.
	model < internal/doctest;
	sink < internal/resultstest;
	sweep/launch < sweep/sweeptest;

	# Helper commands for tests and scripts.
	resultsdir < scripts/rowsdiff, scripts/duckdiff;
	sweep/study < scripts/pcscheck;
`

// knownBackEdges are the imports the table does not allow but the code has today, each
// to be removed (issue 41). The test fails if one of them no longer occurs, so that this
// list only shrinks: delete the line with the edge.
var knownBackEdges = map[[2]string]string{}

// TestLayering fails on any import between this module's packages that neither the
// table nor knownBackEdges allows.
func TestLayering(t *testing.T) {
	module := modulePath(t)
	allowed, err := parseLayers(layers)
	if err != nil {
		t.Fatalf("the layers table: %v", err)
	}
	pkgs := moduleImports(t, module)

	var names []string
	for p := range pkgs {
		names = append(names, p)
	}
	sort.Strings(names)
	seen := map[[2]string]bool{}
	for _, p := range names {
		ok, listed := allowed[p]
		if !listed {
			t.Errorf("package %s is not in the layers table in layering_test.go: add a rule naming what it may import", p)
			continue
		}
		for _, imp := range pkgs[p] {
			if _, isPkg := pkgs[imp]; !isPkg {
				t.Errorf("%s imports %s, which the walk of the module did not find", p, imp)
			}
			if ok[imp] {
				continue
			}
			e := [2]string{p, imp}
			if _, known := knownBackEdges[e]; known {
				seen[e] = true
				continue
			}
			t.Errorf("import not allowed by the layers table: %s → %s (%s may import only: %s)",
				p, imp, p, strings.Join(setList(ok), ", "))
		}
	}
	for p := range allowed {
		if _, ok := pkgs[p]; !ok {
			t.Errorf("the layers table names %s, which is not a package of the module: remove it", p)
		}
	}
	for e, why := range knownBackEdges {
		if !seen[e] {
			t.Errorf("known back-edge %s → %s (%s) no longer occurs: delete it from knownBackEdges", e[0], e[1], why)
		}
	}
}

// TestSlurmLinksNoModel asks the go command, for this platform's build, what
// sweep/slurm links: no model/ package (issue 41's acceptance). TestLayering implies
// it for the table's edges; this checks the linked result.
func TestSlurmLinksNoModel(t *testing.T) {
	module := modulePath(t)
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command in PATH: %v", err)
	}
	out, err := exec.Command(goCmd, "list", "-deps", "./sweep/slurm").Output()
	if err != nil {
		t.Fatalf("go list -deps ./sweep/slurm: %v", err)
	}
	var model []string
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, module+"/model/") {
			model = append(model, strings.TrimPrefix(p, module+"/"))
		}
	}
	if len(model) > 0 {
		t.Errorf("go list -deps ./sweep/slurm lists %s: the Slurm launcher must not link the model", strings.Join(model, ", "))
	}
}

// parseLayers reads the table into, for each package, the set of packages it may import.
func parseLayers(rules string) (map[string]map[string]bool, error) {
	allowed := map[string]map[string]bool{"NONE": {}}
	var text strings.Builder
	for _, line := range strings.Split(rules, "\n") {
		line, _, _ = strings.Cut(line, "#")
		text.WriteString(line + " ")
	}
	for _, rule := range strings.Split(text.String(), ";") {
		if strings.TrimSpace(rule) == "" {
			continue
		}
		below, above, ok := strings.Cut(rule, "<")
		if !ok || strings.Contains(above, "<") {
			return nil, fmt.Errorf("rule %q: want `a, b < c, d`", strings.Join(strings.Fields(rule), " "))
		}
		set := map[string]bool{}
		for _, b := range names(below) {
			bs, ok := allowed[b]
			if !ok {
				return nil, fmt.Errorf("rule %q: %s is used before its own rule", strings.Join(strings.Fields(rule), " "), b)
			}
			if !isGroup(b) {
				set[b] = true
			}
			for x := range bs {
				set[x] = true
			}
		}
		for _, a := range names(above) {
			if _, dup := allowed[a]; dup {
				return nil, fmt.Errorf("%s is on the right of two rules", a)
			}
			allowed[a] = set
		}
	}
	for n := range allowed {
		if isGroup(n) {
			delete(allowed, n)
		}
	}
	return allowed, nil
}

func names(list string) []string {
	var out []string
	for _, f := range strings.Split(list, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func isGroup(name string) bool { return name == strings.ToUpper(name) }

func setList(s map[string]bool) []string {
	var out []string
	for p := range s {
		out = append(out, p)
	}
	sort.Strings(out)
	if len(out) == 0 {
		return []string{"none of the module"}
	}
	return out
}

// modulePath reads the module path from go.mod at the module root (this directory).
func modulePath(t *testing.T) string {
	t.Helper()
	f, err := os.Open("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			if p, err := strconv.Unquote(strings.TrimSpace(rest)); err == nil {
				return p
			}
			return strings.TrimSpace(rest)
		}
	}
	t.Fatal("go.mod: no module line")
	return ""
}

// moduleImports walks the module and returns, for each package (its path relative to the
// module), the module's packages that its non-test files import, sorted.
func moduleImports(t *testing.T, module string) map[string][]string {
	t.Helper()
	pkgs := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			n := d.Name()
			if path != "." && (n == "testdata" || n == "vendor" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
				return filepath.SkipDir
			}
			if path != "." {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // another module
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		if buildIgnored(f.Comments, f.Package) {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if dir == "." {
			return fmt.Errorf("%s: a non-test file at the module root: give its package a row in the layers table and teach this walk its name", path)
		}
		imps := pkgs[dir]
		if imps == nil {
			imps = []string{}
		}
		for _, is := range f.Imports {
			p, err := strconv.Unquote(is.Path.Value)
			if err != nil {
				return fmt.Errorf("%s: %v", path, err)
			}
			if rel, ok := strings.CutPrefix(p, module+"/"); ok && !slices.Contains(imps, rel) {
				imps = append(imps, rel)
			}
		}
		sort.Strings(imps)
		pkgs[dir] = imps
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// buildIgnored reports whether a file's //go:build line is "ignore": such files are not
// part of any build (deps_test.go skips them too).
func buildIgnored(comments []*ast.CommentGroup, pkg token.Pos) bool {
	for _, g := range comments {
		if g.Pos() >= pkg {
			break
		}
		for _, c := range g.List {
			if !constraint.IsGoBuild(c.Text) {
				continue
			}
			if x, err := constraint.Parse(c.Text); err == nil {
				if tag, ok := x.(*constraint.TagExpr); ok && tag.Tag == "ignore" {
					return true
				}
			}
		}
	}
	return false
}
