package sweep

import (
	"fmt"
	"math"
	"reflect"
	"sync"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/sim"
)

// Typed values: what the jobs columns hold and what constraints compare.
//
//	bytes, queuesize  int64, bytes            (700KB → 700000)
//	uint, int         int64
//	datarate          float64, bit/s          (400Gbps → 4e11)
//	timeval           float64, seconds        (500ns → 5e-7)
//	double            float64
//	bool              bool
//	string, vector    string (vectors in the bracket form "[0.9, 0.1, 0, 0, 0, 0, 0, 0]")

// attrIndex indexes the schema by canonical path. It is built at its first use, by a
// spec with axes or --set values, not at every start of the process.
var attrIndex = sync.OnceValue(func() map[string]config.Attr {
	m := map[string]config.Attr{}
	for _, a := range config.Schema() {
		m[a.Path] = a
	}
	return m
})

// attrOf returns the schema entry of a canonical path.
func attrOf(canonical string) (config.Attr, bool) {
	if a, ok := attrIndex()[canonical]; ok {
		return a, ok
	}
	return config.Lookup(canonical) // tiers.<tier>.* (issue 17)
}

// columnType is the Go type of the jobs column of an attribute.
func columnType(a config.Attr) reflect.Type {
	switch a.Type {
	case "bytes", "queuesize", "uint", "int":
		return reflect.TypeFor[int64]()
	case "datarate", "timeval", "double":
		return reflect.TypeFor[float64]()
	case "bool":
		return reflect.TypeFor[bool]()
	}
	return reflect.TypeFor[string]()
}

// Typed returns the typed value of attribute a in c (see the table above).
func Typed(c *config.Config, a config.Attr) (any, error) {
	text, err := c.Get(a.Path)
	if err != nil {
		return nil, err
	}
	switch a.Type {
	case "bytes", "queuesize":
		b, err := config.ParseBytes(text)
		return int64(b), err
	case "uint":
		u, err := config.ParseUint(text)
		if u > math.MaxInt64 {
			return nil, fmt.Errorf("%s: %d does not fit a signed 64-bit column", a.Path, u)
		}
		return int64(u), err
	case "int":
		n, err := config.ParseInt(text)
		return int64(n), err
	case "datarate":
		r, err := config.ParseRate(text)
		return float64(r), err
	case "timeval":
		t, err := config.ParseTime(text, false)
		return timeToSeconds(t), err
	case "double":
		return config.ParseDouble(text)
	case "bool":
		return config.ParseBool(text)
	}
	return text, nil
}

func timeToSeconds(t sim.Time) float64 { return float64(t) / float64(sim.Second) }

func secondsToTime(s float64) sim.Time { return sim.Time(math.Round(s * float64(sim.Second))) }

// toFloat returns a numeric typed value as float64 (0 for others).
func toFloat(v any) float64 {
	switch v := v.(type) {
	case int64:
		return float64(v)
	case float64:
		return v
	}
	return 0
}
