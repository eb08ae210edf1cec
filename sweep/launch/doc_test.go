package launch

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/internal/doctest"
	"github.com/rocesweep/rocesweep/model/stats"
)

// TestDocMetrics: the metric table of docs/results.md §2 names exactly the summary
// metrics of the jobs table, so a metric added or renamed in the code fails here until
// the page says what it means.
func TestDocMetrics(t *testing.T) {
	tb := doctest.Load(t, "results.md", "jobs-metrics")
	tick := regexp.MustCompile("`([a-z0-9_]+)`")
	var documented []string
	for _, cell := range tb.Col(t, "metric") {
		for _, m := range tick.FindAllStringSubmatch(cell, -1) {
			documented = append(documented, m[1])
		}
	}
	for _, m := range stats.MetricNames {
		if !slices.Contains(documented, m) {
			t.Errorf("%s: metric %s is written to jobs but not documented", tb.Where(), m)
		}
	}
	for _, m := range documented {
		if !slices.Contains(stats.MetricNames, m) {
			t.Errorf("%s: %s is documented but the jobs table has no such metric", tb.Where(), m)
		}
	}
}

// TestDocTables: docs/records.md and docs/results.md name every record table a results
// directory holds.
func TestDocTables(t *testing.T) {
	root := doctest.Root(t)
	for _, page := range []string{"records.md", "results.md"} {
		data, err := os.ReadFile(filepath.Join(root, "docs", page))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range RecordTables() {
			if !strings.Contains(string(data), "`"+name+"`") {
				t.Errorf("docs/%s does not name the table `%s`", page, name)
			}
		}
	}
}
