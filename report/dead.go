package report

import (
	"math"
	"strings"

	"github.com/rocesweep/rocesweep/resultsdir"
)

// notOutputs are the jobs columns that do not measure the model: identity, status and
// the machine's clock (schema.md "Results schema").
var notOutputs = map[string]bool{
	"job_id": true, "status": true, "error": true, "replicate": true, "seed": true,
	"time_utc": true, "wall_sec": true, "events_per_sec": true, "model_version": true,
}

// deadAxes names the axes that change no output at any point (statistics.md §11
// "Nothing here matters"): for every combination of the other axes' levels and every replicate run at
// two or more of the axis's levels, every numeric output column is bit-identical across
// them. An axis never run at two levels beside each other is not judged. ok selects
// the rows that count.
func deadAxes(jobs *resultsdir.Table, axes []*axis, ok []bool) []string {
	var outputs []*resultsdir.Column
	for _, c := range jobs.Columns {
		if c.IsString() || notOutputs[c.Name] || isAxisColumn(c.Name, axes) {
			continue
		}
		outputs = append(outputs, c)
	}
	rep := jobs.Col("replicate")
	var dead []string
	for a, ax := range axes {
		groups := map[string][]int{} // other axes' levels and the replicate -> rows
		for r := range jobs.Rows {
			if !ok[r] || ax.level(r) < 0 {
				continue
			}
			var key strings.Builder
			for b, other := range axes {
				if b != a {
					key.WriteString(other.key(r))
					key.WriteByte(0)
				}
			}
			if rep != nil {
				key.WriteString(rep.Text(r))
			}
			groups[key.String()] = append(groups[key.String()], r)
		}
		judged, same := false, true
		for _, rows := range groups {
			levels := map[int]bool{}
			for _, r := range rows {
				levels[ax.level(r)] = true
			}
			if len(levels) < 2 {
				continue
			}
			judged = true
			for _, c := range outputs {
				for _, r := range rows[1:] {
					if !sameCell(c, rows[0], r) {
						same = false
						break
					}
				}
				if !same {
					break
				}
			}
			if !same {
				break
			}
		}
		if judged && same {
			dead = append(dead, ax.Label)
		}
	}
	return dead
}

func isAxisColumn(name string, axes []*axis) bool {
	for _, a := range axes {
		for _, c := range a.Columns {
			if c == name {
				return true
			}
		}
	}
	return false
}

// sameCell reports whether column c holds the same value (bit for bit, nulls alike) in
// rows r and s.
func sameCell(c *resultsdir.Column, r, s int) bool {
	if c.Null[r] || c.Null[s] {
		return c.Null[r] == c.Null[s]
	}
	return math.Float64bits(c.Num[r]) == math.Float64bits(c.Num[s])
}

// deadNote says which axes are dead, for the report and the closing table.
func deadNote(dead []string) string {
	what := "A dead axis: " + dead[0] + " changes"
	if len(dead) > 1 {
		what = "Dead axes: " + strings.Join(dead, ", ") + " change"
	}
	return what + " no output at any point (every metric bit-identical across its values, replicate by replicate): those jobs were run for nothing. Leave it out, or sweep it where it acts."
}
