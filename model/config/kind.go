package config

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/rocesweep/rocesweep/model/sim"
)

// Kind is the value type of an attribute (switch.md §3, nic.md §14): how its text parses
// (ParseBytes, ParseRate, ...), how its value prints in the spec's units, and what a jobs
// column of it holds. Every per-type decision of the schema, Set, Get, the sweep's typed
// values and the results' formatting is a method here.
//
//	kind              field Go type   column value            text
//	bytes, queuesize  Bytes           int64, bytes            700KB → 700000
//	uint              uint64          int64
//	int               int             int64
//	datarate          Rate            float64, bit/s          400Gbps → 4e11
//	timeval           sim.Time        float64, seconds        500ns → 5e-7
//	double            float64         float64
//	bool              bool            bool
//	string            string          string
//	vector            Vec8            string, bracket form    [0.9, 0.1, 0, 0, 0, 0, 0, 0]
//	list              []Workload      string                  (workload.mix; YAML only)
type Kind uint8

// The kinds. The zero Kind is no kind.
const (
	KindUint Kind = iota + 1
	KindInt
	KindDouble
	KindBool
	KindString
	KindBytes
	KindQueueSize // bytes of a NIC queue (nic.md §14): parsed and printed as bytes
	KindDataRate
	KindTimeVal
	KindVector
	KindList
)

var kindNames = [...]string{
	KindUint: "uint", KindInt: "int", KindDouble: "double", KindBool: "bool",
	KindString: "string", KindBytes: "bytes", KindQueueSize: "queuesize",
	KindDataRate: "datarate", KindTimeVal: "timeval", KindVector: "vector", KindList: "list",
}

// String is the kind's name in the spec (switch.md §3, nic.md §14): "bytes", "timeval".
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// MarshalText writes the kind by name, so the schema's JSON says "type": "bytes".
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind name.
func (k *Kind) UnmarshalText(b []byte) error {
	p, ok := kindNamed(string(b))
	if !ok {
		return fmt.Errorf("unknown attribute kind %q", b)
	}
	*k = p
	return nil
}

// kindNamed returns the kind of a name ("queuesize" of a `type:` tag).
func kindNamed(name string) (Kind, bool) {
	for k, n := range kindNames {
		if n != "" && n == name {
			return Kind(k), true
		}
	}
	return 0, false
}

// Unit is the base unit of the kind's values: B, bps, ps; "" for unitless kinds.
func (k Kind) Unit() string {
	switch k {
	case KindBytes, KindQueueSize:
		return "B"
	case KindDataRate:
		return "bps"
	case KindTimeVal:
		return "ps"
	}
	return ""
}

// IsBytes reports a size in bytes (bytes, queuesize).
func (k Kind) IsBytes() bool { return k == KindBytes || k == KindQueueSize }

// Dimensional reports a kind with a unit (bytes, queuesize, datarate, timeval): the
// values nic.md §15 rule 5 forbids negative.
func (k Kind) Dimensional() bool { return k.Unit() != "" }

// Numeric reports a kind whose column is a number: what a range {from, to} can sweep.
func (k Kind) Numeric() bool {
	switch k {
	case KindBytes, KindQueueSize, KindDataRate, KindTimeVal, KindUint, KindInt, KindDouble:
		return true
	}
	return false
}

// Column is the Go type of a jobs column of the kind (Parquet INT64, DOUBLE, BOOLEAN,
// BYTE_ARRAY string).
func (k Kind) Column() reflect.Type {
	switch k {
	case KindBytes, KindQueueSize, KindUint, KindInt:
		return reflect.TypeFor[int64]()
	case KindDataRate, KindTimeVal, KindDouble:
		return reflect.TypeFor[float64]()
	case KindBool:
		return reflect.TypeFor[bool]()
	}
	return reflect.TypeFor[string]()
}

// format prints a field value of the kind in the spec's units (the form Set accepts).
func (k Kind) format(v reflect.Value) string {
	switch k {
	case KindBytes, KindQueueSize:
		return FormatBytes(Bytes(v.Int()))
	case KindDataRate:
		return FormatRate(Rate(v.Float()))
	case KindTimeVal:
		return FormatTime(sim.Time(v.Int()))
	case KindVector:
		return FormatVec8(v.Interface().(Vec8))
	case KindUint:
		return strconv.FormatUint(v.Uint(), 10)
	case KindInt:
		return strconv.FormatInt(v.Int(), 10)
	case KindDouble:
		return FormatDouble(v.Float())
	case KindBool:
		return strconv.FormatBool(v.Bool())
	case KindString:
		return v.String()
	case KindList:
		if v.Len() == 0 {
			return "[]"
		}
		return fmt.Sprintf("[%d entries]", v.Len())
	}
	return fmt.Sprint(v.Interface())
}

// column returns the jobs-column value of a field value of the kind (see the table of
// Kind); path names the attribute in the error of a uint too large for a signed column.
func (k Kind) column(path string, v reflect.Value) (any, error) {
	switch k {
	case KindBytes, KindQueueSize, KindInt:
		return v.Int(), nil
	case KindUint:
		u := v.Uint()
		if u > math.MaxInt64 {
			return nil, fmt.Errorf("%s: %d does not fit a signed 64-bit column", path, u)
		}
		return int64(u), nil
	case KindDataRate, KindDouble:
		return v.Float(), nil
	case KindTimeVal:
		return float64(v.Int()) / float64(sim.Second), nil
	case KindBool:
		return v.Bool(), nil
	}
	return k.format(v), nil
}

// FormatColumn prints a numeric column value of a dimensional kind in its units: bytes
// as B (700KB), datarate as bit/s (400Gbps), timeval as seconds (5us). ok is false for
// the other kinds, whose numbers print as numbers.
func (k Kind) FormatColumn(x float64) (text string, ok bool) {
	switch k {
	case KindBytes, KindQueueSize:
		return FormatBytes(Bytes(x)), true
	case KindDataRate:
		return FormatRate(Rate(x)), true
	case KindTimeVal:
		return FormatTime(sim.Time(math.Round(x * float64(sim.Second)))), true
	}
	return "", false
}

// RangeText is the text of the point x (a column value: B, bit/s, seconds) of a range
// {from, to}, rounded to the kind's resolution: whole bytes, whole ps, whole numbers.
func (k Kind) RangeText(x float64) string {
	switch k {
	case KindBytes, KindQueueSize:
		return FormatBytes(Bytes(math.Round(x)))
	case KindTimeVal:
		return FormatTime(sim.Time(math.Round(x * float64(sim.Second))))
	case KindDataRate:
		if x >= 1e6 {
			return strconv.FormatFloat(x/1e9, 'g', 12, 64) + "Gbps"
		}
		return strconv.FormatFloat(math.Round(x), 'f', -1, 64) + "bps"
	case KindUint, KindInt:
		return strconv.FormatInt(int64(math.Round(x)), 10)
	}
	return strconv.FormatFloat(x, 'g', 12, 64)
}

// parse parses text as a value of attribute a (of this kind) and checks the rules a
// single value can break (switch.md §1 DC-21 size limit, nic.md §15 rule 4 lanes, enums).
// The result has the field's Go type (see the table of Kind).
func (k Kind) parse(a *Attr, text string) (any, error) {
	switch k {
	case KindBytes, KindQueueSize:
		t := text
		if _, unit, err := splitNumber(text); a.bareBytes && err == nil && unit == "" {
			t += "B"
		}
		b, err := ParseBytes(t)
		if err != nil {
			return nil, err
		}
		if a.Device == "switch" && b > MaxSwitchBytes {
			return nil, fmt.Errorf("%s B exceeds the largest switch size 4,294,967,295 B (switch.md §1, DC-21)", Commas(int64(b)))
		}
		return b, nil
	case KindDataRate:
		return ParseRate(text)
	case KindTimeVal:
		return ParseTime(text, a.bareSeconds)
	case KindVector:
		entries, err := SplitList(text)
		if err != nil {
			return nil, fmt.Errorf("%v (%s)", err, listRule(a))
		}
		vec, err := ParseVec8(entries, a.whole)
		if err != nil {
			return nil, fmt.Errorf("%v (%s)", err, listRule(a))
		}
		return vec, nil
	case KindUint:
		u, err := ParseUint(text)
		if err != nil {
			return nil, err
		}
		if (a.Path == "nic.HostInterface.NICSide.PhysicalLayer.LaneCount" || a.Path == "nic.HostInterface.HostSide.PhysicalLayer.LaneCount") && (u < 1 || u > 16) {
			return nil, fmt.Errorf("LaneCount %d outside 1-16 (nic.md §15 rule 4)", u)
		}
		return u, nil
	case KindInt:
		return ParseInt(text)
	case KindDouble:
		return ParseDouble(text)
	case KindBool:
		return ParseBool(text)
	case KindString:
		s := strings.TrimSpace(text)
		if len(a.Enum) > 0 && !contains(a.Enum, s) {
			return nil, fmt.Errorf("not one of %s%s (%s)", strings.Join(a.Enum, ", "), suggest(s, a.Enum), enumRule(a))
		}
		return s, nil
	case KindList:
		return nil, fmt.Errorf("%s is a list of workloads; give it in the YAML spec, or set workload.mix.0.kind, workload.mix.0.senders, ...", a.Path)
	}
	return nil, fmt.Errorf("no parser for type %s", k)
}

// Value is one attribute value parsed and checked once (Attr.Parse): Config.SetValue
// assigns it without parsing again, Column gives its jobs-column value.
type Value struct {
	attr *Attr
	v    reflect.Value // of the field's Go type
}

// Parse parses text (YAML scalar text, or a bracket list for vectors) as a value of a,
// with the checks Set makes. Errors read `path: problem (value "x")`.
func (a Attr) Parse(text string) (Value, error) {
	p := lookupPtr(a.Path)
	if p == nil {
		return Value{}, fmt.Errorf("%s: not an attribute of the schema", a.Path)
	}
	return p.parseValue(a.Path, text)
}

func (a *Attr) parseValue(path, text string) (Value, error) {
	x, err := a.Type.parse(a, text)
	if err != nil {
		return Value{}, &FieldError{Path: path, Value: text, Msg: err.Error()}
	}
	return Value{attr: a, v: reflect.ValueOf(x)}, nil
}

// Column returns the value as a jobs column holds it (see the table of Kind).
func (v Value) Column() (any, error) {
	if v.attr == nil {
		return nil, fmt.Errorf("no value")
	}
	return v.attr.Type.column(v.attr.Path, v.v)
}

// assign stores the value in field f, a field of the attribute's Go type.
func (v Value) assign(f reflect.Value) { f.Set(v.v.Convert(f.Type())) }
