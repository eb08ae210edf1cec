package specfile

import (
	"fmt"

	"github.com/rocesweep/rocesweep/model/config"
)

// Typed values are what the jobs columns hold and what constraints compare: the column
// values of config.Kind (bytes as int64 B, datarate as float64 bit/s, timeval as float64
// seconds, strings and vectors as text).

// Lookup is the typed value of the attribute at path (any form config.Canonical
// accepts) in c: what a constraint reads.
func Lookup(c *config.Config, path string) (any, error) {
	canon, err := config.Canonical(path)
	if err != nil {
		return nil, err
	}
	if _, ok := config.Lookup(canon); !ok {
		return nil, fmt.Errorf("%s cannot be read in a constraint", path)
	}
	return c.Column(canon)
}

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
