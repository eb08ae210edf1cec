package report

import (
	"slices"
	"strings"

	"github.com/rocesweep/rocesweep/resultsdir"
)

// params formats the swept values of row i: "switch.LossyAlpha=0.5 switch.StaticPoolXoffThreshold=700KB".
func params(jobs *resultsdir.Table, axisCols []string, i int) string {
	var parts []string
	for _, c := range axisCols {
		col := jobs.Col(c)
		v := col.Text(i)
		if a, ok := attrOf(c); ok && !col.IsString() {
			v = formatValue(a, col.Num[i])
		}
		parts = append(parts, pathOf(c)+"="+v)
	}
	if rep := jobs.Col("replicate"); rep != nil {
		parts = append(parts, "replicate="+rep.Text(i))
	}
	return strings.Join(parts, " ")
}

// shared lists the non-metric, non-identity, non-axis columns with one value.
func shared(jobs *resultsdir.Table, axisCols []string) []Setting {
	var out []Setting
	for _, c := range jobs.Columns {
		if resultsdir.IsMetric(c.Name) || slices.Contains(resultsdir.Identity, c.Name) || slices.Contains(axisCols, c.Name) || jobs.Rows == 0 {
			continue
		}
		v := c.Text(0)
		same := true
		for i := 1; i < jobs.Rows && same; i++ {
			same = c.Text(i) == v
		}
		if !same {
			continue
		}
		if a, ok := attrOf(c.Name); ok && !c.IsString() {
			v = formatValue(a, c.Num[0])
		}
		out = append(out, Setting{Name: pathOf(c.Name), Value: v})
	}
	return out
}
