package resultsdir

import (
	"strings"

	"github.com/rocesweep/rocesweep/model/config"
)

// PathOf turns a jobs column back into the parameter path: the longest prefix of
// underscores turned into dots that names a known attribute (topology_hosts_per_leaf ->
// topology.hosts_per_leaf); else the column itself.
func PathOf(col string) string {
	if col == SeedBaseColumn {
		return "seed"
	}
	n := strings.Count(col, "_")
	for k := n; k >= 1; k-- {
		p := strings.Replace(col, "_", ".", k)
		if _, err := config.Canonical(p); err == nil {
			return p
		}
	}
	return col
}

// AttrOf returns the attribute a jobs column holds, if it names one.
func AttrOf(col string) (config.Attr, bool) {
	c, err := config.Canonical(PathOf(col))
	if err != nil {
		return config.Attr{}, false
	}
	return config.Lookup(c)
}

// FormatValue prints a typed jobs value in the attribute's units (sweep's typed values:
// bytes as int64 B, datarate as bit/s, timeval as seconds): 700KB, 400Gbps, 5us.
func FormatValue(a config.Attr, v float64) string {
	if text, ok := a.Type.FormatColumn(v); ok {
		return text
	}
	return FormatNum(v)
}

// ParamText prints cell i of a swept column as a user writes the value: in the
// attribute's units when the column names an attribute, else as Column.Text.
func ParamText(c *Column, i int) string {
	if a, ok := AttrOf(c.Name); ok && !c.IsString() && !c.Null[i] {
		return FormatValue(a, c.Num[i])
	}
	return c.Text(i)
}
