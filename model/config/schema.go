package config

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rocesweep/rocesweep/model/sim"
)

// Attr describes one settable attribute or job key, derived by reflection from the typed
// structs of types.go and the values of Default().
type Attr struct {
	// Path is the canonical path: "switch.SharedBufferManager.LossyAlpha",
	// "nic.NetworkInterface.IngressBufferManager.TotalBufferSize", "global.Mtu",
	// "topology.hosts", "workload.message_size", "duration", "seed", "stop", "name".
	Path string `json:"path"`
	// Device is the first path component ("switch", "nic", "global", "topology",
	// "workload") or "job" for the top-level keys.
	Device string `json:"device"`
	// Type is the value's kind: uint, bool, double, string, bytes, queuesize, datarate,
	// timeval, vector, int, list (switch.md §3, nic.md §14); JSON writes its name.
	Type Kind `json:"type"`
	// Unit is the base unit of the value: B, bps, ps; "" for unitless types.
	Unit string `json:"unit"`
	// Default is the default value formatted in the spec's units: 256KB, 400Gbps, 500ns,
	// [0.9, 0.1, 0, 0, 0, 0, 0, 0].
	Default string `json:"default"`
	// Enum lists the allowed strings of a string attribute.
	Enum []string `json:"enum,omitempty"`
	// Doc is a one-line description citing the spec section.
	Doc string `json:"doc"`

	index       []int  // reflect field index path from Config
	tier, bit   int    // tiers.* only: the tier (records.md §2 number) and its bit in Tier.set
	base        string // tiers.<t>.switch.* only: the switch attribute it overrides
	whole       bool   // vector entries must be whole numbers
	bareSeconds bool   // timeval: a bare number means seconds ("double s", nic.md §14)
	bareBytes   bool   // bytes: a bare number means bytes (Mtu, MSS: frame sizes, written bare as by ip link)
	comps       []string
	mix         int // workload.mix.N.key only: N + 1 (its index is the workload key's)
}

// attrs is the schema, built once from the type tags. It is read-only after init, so
// jobs in one process share nothing mutable (design.md "The engine").
var attrs = buildSchema()

// attrByPath indexes every attribute, of attrs and of tierAttrs, by canonical path: the
// one schema index (Lookup reads it for other packages).
var attrByPath = func() map[string]*Attr {
	m := make(map[string]*Attr, len(attrs)+len(tierAttrs))
	for i := range attrs {
		m[attrs[i].Path] = &attrs[i]
	}
	for i := range tierAttrs {
		m[tierAttrs[i].Path] = &tierAttrs[i]
	}
	return m
}()

// lookupPtr is the schema entry of a canonical path, nil when there is none. A
// workload.mix.N.key path gets an entry of its own, made on demand: the workload key's,
// under the path, for mix entry N.
func lookupPtr(canonical string) *Attr {
	if a, ok := attrByPath[canonical]; ok {
		return a
	}
	parts := strings.Split(canonical, ".")
	if len(parts) != 4 || parts[0] != "workload" || parts[1] != "mix" {
		return nil
	}
	n, err := mixPath(parts)
	if err != nil {
		return nil
	}
	a := *attrByPath["workload."+parts[3]]
	a.Path, a.mix, a.Doc = canonical, n+1, fmt.Sprintf("mix entry %d: %s", n, a.Doc)
	a.comps = []string{"mix", parts[2], parts[3]}
	return &a
}

// MixEntry returns N for an attribute of mix entry N (workload.mix.N.key); ok is false
// for any other attribute.
func (a Attr) MixEntry() (n int, ok bool) { return a.mix - 1, a.mix > 0 }

// Aliases maps alternative job keys to canonical paths (design.md "Sweep spec").
var aliases = map[string]string{
	"report_interval": "global.NDStatsReportInterval",
}

// Schema returns every attribute with its canonical path, type, unit and default, in
// declaration order (job keys, global, topology, workload, switch, nic).
func Schema() []Attr {
	out := make([]Attr, len(attrs))
	copy(out, attrs)
	return out
}

var (
	typeBytes = reflect.TypeOf(Bytes(0))
	typeRate  = reflect.TypeOf(Rate(0))
	typeTime  = reflect.TypeOf(sim.Time(0))
	typeVec8  = reflect.TypeOf(Vec8{})
)

func buildSchema() []Attr {
	var out []Attr
	def := reflect.ValueOf(Default())
	t := def.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key := f.Tag.Get("key")
		if key == "" {
			continue
		}
		if f.Type.Kind() == reflect.Struct && f.Type != typeVec8 {
			walk(&out, key, []string{}, []int{i}, f.Type, def.Field(i))
			continue
		}
		out = append(out, leaf("job", key, nil, []int{i}, f, def.Field(i)))
	}
	return out
}

// walk adds the leaves of struct type t under device, components comps.
func walk(out *[]Attr, device string, comps []string, index []int, t reflect.Type, v reflect.Value) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := f.Tag.Get("rs")
		if name == "" {
			name = f.Tag.Get("key")
		}
		if name == "" {
			continue
		}
		idx := append(append([]int{}, index...), i)
		if f.Type.Kind() == reflect.Struct && f.Type != typeVec8 {
			walk(out, device, append(append([]string{}, comps...), name), idx, f.Type, v.Field(i))
			continue
		}
		*out = append(*out, leaf(device, name, comps, idx, f, v.Field(i)))
	}
}

func leaf(device, name string, comps []string, index []int, f reflect.StructField, v reflect.Value) Attr {
	a := Attr{Device: device, index: index, Doc: f.Tag.Get("doc"), whole: f.Tag.Get("whole") == "1",
		bareSeconds: f.Tag.Get("bare") == "s", bareBytes: f.Tag.Get("bare") == "B"}
	a.comps = append(append([]string{}, comps...), name)
	if device == "job" {
		a.Path = name
	} else {
		a.Path = device + "." + strings.Join(a.comps, ".")
	}
	if e := f.Tag.Get("enum"); e != "" {
		a.Enum = strings.Split(e, "|")
	}
	switch {
	case f.Type == typeBytes:
		a.Type = KindBytes
	case f.Type == typeRate:
		a.Type = KindDataRate
	case f.Type == typeTime:
		a.Type = KindTimeVal
	case f.Type == typeVec8:
		a.Type = KindVector
	case f.Type.Kind() == reflect.Uint64:
		a.Type = KindUint
	case f.Type.Kind() == reflect.Int:
		a.Type = KindInt
	case f.Type.Kind() == reflect.Float64:
		a.Type = KindDouble
	case f.Type.Kind() == reflect.Bool:
		a.Type = KindBool
	case f.Type.Kind() == reflect.String:
		a.Type = KindString
	case f.Type.Kind() == reflect.Slice:
		a.Type = KindList
	default:
		panic("config: no schema type for " + f.Name)
	}
	if t := f.Tag.Get("type"); t != "" {
		k, ok := kindNamed(t)
		if !ok {
			panic("config: unknown type tag " + t + " on " + f.Name)
		}
		a.Type = k
	}
	a.Unit = a.Type.Unit()
	if u := f.Tag.Get("unit"); u != "" {
		a.Unit = u
	}
	a.Default = a.Type.format(v)
	return a
}

// devices are the first path components, in order.
var devices = []string{"global", "topology", "workload", "switch", "nic"}

// Canonical resolves a user path to its canonical form (design.md "Sweep spec"): a
// canonical path, an alias (report_interval), or a short or partial path whose
// components are an ordered subsequence of a canonical path ending in the attribute name
// and unique within the device (switch.LossyAlpha, nic.HostSide.LaneBps). An ambiguous
// path gets an error listing the candidates, an unknown one the closest known names.
// workload.mix.N.key paths are canonical as given when key is a workload key.
func Canonical(path string) (string, error) {
	a, err := resolve(path)
	if err != nil {
		return "", err
	}
	if a == nil { // workload.mix.N.key
		return path, nil
	}
	return a.Path, nil
}

// resolve finds the attribute of path; nil with no error for a workload.mix.N.key path.
func resolve(path string) (*Attr, error) {
	if p, ok := aliases[path]; ok {
		path = p
	}
	if a, ok := attrByPath[path]; ok {
		return a, nil
	}
	parts := strings.Split(path, ".")
	if parts[0] == "tiers" {
		return resolveTier(path)
	}
	if len(parts) >= 4 && parts[0] == "workload" && parts[1] == "mix" {
		if _, err := mixPath(parts); err != nil {
			return nil, err
		}
		return nil, nil
	}
	device := parts[0]
	known := false
	for _, d := range devices {
		known = known || d == device
	}
	if !known || len(parts) < 2 {
		return nil, unknownErr(path, "")
	}
	var cands []*Attr
	for i := range attrs {
		a := &attrs[i]
		if a.Device == device && a.comps[len(a.comps)-1] == parts[len(parts)-1] && subsequence(parts[1:], a.comps) {
			cands = append(cands, a)
		}
	}
	switch len(cands) {
	case 1:
		return cands[0], nil
	case 0:
		return nil, unknownErr(path, device)
	}
	names := make([]string, len(cands))
	for i, a := range cands {
		names[i] = a.Path
	}
	return nil, fmt.Errorf("%s: ambiguous attribute, matches %s", path, strings.Join(names, ", "))
}

// mixPath checks a workload.mix.N.key path and returns N.
func mixPath(parts []string) (int, error) {
	path := strings.Join(parts, ".")
	n, err := strconv.Atoi(parts[2])
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s: workload.mix entries are numbered 0, 1, ... (got %q)", path, parts[2])
	}
	if len(parts) != 4 {
		return 0, unknownErr(path, "workload")
	}
	if _, ok := attrByPath["workload."+parts[3]]; !ok || parts[3] == "mix" {
		return 0, fmt.Errorf("%s: unknown workload key %q%s", path, parts[3], suggest(parts[3], workloadKeys()))
	}
	return n, nil
}

func workloadKeys() []string {
	var out []string
	for _, a := range attrs {
		if a.Device == "workload" && a.Path != "workload.mix" {
			out = append(out, a.comps[0])
		}
	}
	return out
}

// subsequence reports whether want appears in have in order (not necessarily adjacent).
func subsequence(want, have []string) bool {
	j := 0
	for _, h := range have {
		if j < len(want) && want[j] == h {
			j++
		}
	}
	return j == len(want)
}

// unknownErr names an unknown path with the closest known names.
func unknownErr(path, device string) error {
	var names []string
	for _, a := range attrs {
		if device == "" || a.Device == device {
			names = append(names, a.Path)
		}
	}
	for k := range aliases {
		names = append(names, k)
	}
	// The same attribute name in another device or the wrong case is the likeliest slip
	// (nic.Mtu → global.Mtu); otherwise the closest names by edit distance.
	parts := strings.Split(path, ".")
	var same []string
	for _, a := range attrs {
		if strings.EqualFold(a.comps[len(a.comps)-1], parts[len(parts)-1]) && len(same) < 3 {
			same = append(same, shortest(a.Path))
		}
	}
	if len(same) > 0 {
		return fmt.Errorf("%s: unknown attribute (did you mean %s?)", path, strings.Join(same, " or "))
	}
	return fmt.Errorf("%s: unknown attribute%s", path, suggestPath(path, names))
}

// suggestPath proposes the closest canonical or short names to path, compared on the
// last component and on the whole path, as "(did you mean X?)".
func suggestPath(path string, names []string) string {
	parts := strings.Split(path, ".")
	last := strings.ToLower(parts[len(parts)-1])
	type scored struct {
		name string
		d    int
	}
	var best []scored
	for _, n := range names {
		np := strings.Split(n, ".")
		d := editDistance(last, strings.ToLower(np[len(np)-1]))
		if d2 := editDistance(strings.ToLower(path), strings.ToLower(n)); d2 < d {
			d = d2
		}
		best = append(best, scored{n, d})
	}
	sort.SliceStable(best, func(i, j int) bool { return best[i].d < best[j].d })
	limit := len(last)/3 + 1
	if limit < 2 {
		limit = 2
	}
	var out []string
	for _, s := range best {
		if s.d > limit || len(out) == 3 || (len(out) > 0 && s.d > best[0].d) {
			break
		}
		out = append(out, shortest(s.name))
	}
	if len(out) == 0 {
		return ""
	}
	return " (did you mean " + strings.Join(out, " or ") + "?)"
}

// ShortName returns the short canonical name of any path Canonical accepts (an alias,
// a short, partial or full path): device + attribute when that is unique within the
// device (switch.LossyAlpha for switch.SharedBufferManager.LossyAlpha), else the full
// canonical path (nic.IngressBufferManager.PoolAllocationVector, whose attribute name
// the egress side shares). A tier attribute keeps its tier prefix
// (tiers.rack.switch.LossyAlpha). It names a swept attribute's jobs column the same way
// whichever alias a spec used. A path that does not resolve is returned as given.
func ShortName(path string) string {
	a, err := resolve(path)
	if err != nil || a == nil {
		return path
	}
	if rest, ok := strings.CutPrefix(a.Path, "tiers."); ok {
		if tier, base, ok := strings.Cut(rest, "."); ok {
			return "tiers." + tier + "." + shortest(base)
		}
	}
	return shortest(a.Path)
}

// shortest returns the shortest unique name of a canonical path: device + attribute when
// unique within the device, else the canonical path.
func shortest(canonical string) string {
	a, ok := attrByPath[canonical]
	if !ok || a.Device == "job" || len(a.comps) == 1 {
		return canonical
	}
	short := a.Device + "." + a.comps[len(a.comps)-1]
	if r, err := resolve(short); err == nil && r == a {
		return short
	}
	return canonical
}

// Suggest returns " (did you mean X?)" for the name in names closest to s, or "" when
// none is close (within a third of s's length): the hint of every "unknown key" error.
func Suggest(s string, names []string) string { return suggest(s, names) }

// suggest proposes the closest of names to s.
func suggest(s string, names []string) string {
	limit := len(s)/3 + 1 // a name further than this is no suggestion
	lower := strings.ToLower(s)
	best, bd := "", 1<<30
	for _, n := range names {
		ln := strings.ToLower(n)
		if abs(len(ln)-len(lower)) > limit {
			continue // the edit distance is at least the difference in length
		}
		if d := editDistance(lower, ln); d < bd {
			best, bd = n, d
		}
	}
	if best == "" || bd > limit {
		return ""
	}
	return " (did you mean " + best + "?)"
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			c = min(c, prev[j]+1, cur[j-1]+1)
			cur[j] = c
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Set assigns value (YAML scalar text, or a bracket/flow list for vectors) to the
// attribute at path, which may be any form Canonical accepts. workload.mix itself can
// only be set from YAML (ApplyNode); workload.mix.N.key sets key of mix entry N, adding
// the entry (at DefaultWorkload values) when N is the next index.
func (c *Config) Set(path, value string) error {
	a, err := resolve(path)
	if err != nil {
		return err
	}
	if a == nil {
		return c.setMix(path, value)
	}
	v, err := a.parseValue(a.Path, value)
	if err != nil {
		return err
	}
	c.SetValue(v)
	return nil
}

// SetValue assigns a value Attr.Parse has parsed and checked, as Set would assign its
// text: a tier attribute is marked set, report_interval moves its followers.
func (c *Config) SetValue(v Value) {
	a := v.attr
	if a == nil {
		return
	}
	if a.Device == "tiers" {
		v.assign(c.tierField(a))
		c.Tiers[a.tier].set[a.bit/64] |= 1 << (a.bit % 64)
		return
	}
	if n, ok := a.MixEntry(); ok {
		// A config copied by value shares its mix entries with the original: write into
		// a copy of them, so that setting one job's entry leaves every other config as
		// it was. The entry must exist (the caller checks the spec's mix), or be the next.
		c.Workload.Mix = slices.Clone(c.Workload.Mix)
		w, err := c.Workload.mixEntry(a.Path, n)
		if err != nil {
			panic("config.SetValue: " + err.Error())
		}
		v.assign(reflect.ValueOf(w).Elem().FieldByIndex(a.index[1:]))
		return
	}
	v.assign(reflect.ValueOf(c).Elem().FieldByIndex(a.index))
	c.followReportInterval(a.Path)
}

// reportFollowers are the intervals report_interval drives besides NDStatsReportInterval
// (schema.md "Results schema"): every interval table then has the same row spacing.
var reportFollowers = []string{
	"switch.SharedBufferManager.BufferStatsReportInterval",
	"switch.LoadBalancingStatsReportInterval",
	"global.NetworkBufferStatsReportingInterval",
}

// followReportInterval runs after path was set. Setting report_interval
// (global.NDStatsReportInterval) also sets each follower the config has not set itself;
// setting a follower pins it, so an explicit value wins whatever the order.
// LoadBalancingStatsReportInterval follows at 10 us or more (switch.md §11 rule 8).
func (c *Config) followReportInterval(path string) {
	for i, f := range reportFollowers {
		if path == f {
			c.pinnedIntervals |= 1 << i
			return
		}
	}
	if path != "global.NDStatsReportInterval" {
		return
	}
	iv := c.Global.NDStatsReportInterval
	if iv <= 0 {
		return // invalid; Validate says so
	}
	for i := range reportFollowers {
		if c.pinnedIntervals&(1<<i) != 0 {
			continue
		}
		switch i {
		case 0:
			c.Switch.SharedBufferManager.BufferStatsReportInterval = iv
		case 1:
			c.Switch.LoadBalancingStatsReportInterval = max(iv, 10*sim.Microsecond)
		case 2:
			c.Global.NetworkBufferStatsReportingInterval = iv
		}
	}
}

// setMix sets workload.mix.N.key.
func (c *Config) setMix(path, value string) error {
	parts := strings.Split(path, ".")
	n, err := mixPath(parts)
	if err != nil {
		return err
	}
	w, err := c.Workload.mixEntry(path, n)
	if err != nil {
		return err
	}
	a := attrByPath["workload."+parts[3]]
	v := reflect.ValueOf(w).Elem().FieldByIndex(a.index[1:])
	return setAttr(v, a, path, value)
}

// mixEntry returns mix entry n, appending a DefaultWorkload entry when n == len(Mix).
func (w *Workload) mixEntry(path string, n int) (*Workload, error) {
	if n > len(w.Mix) {
		return nil, fmt.Errorf("%s: workload.mix has %d entries; the next one is %d", path, len(w.Mix), len(w.Mix))
	}
	if n == len(w.Mix) {
		w.Mix = append(w.Mix, DefaultWorkload())
	}
	return &w.Mix[n], nil
}

// setAttr parses value per a's kind into v. Errors read `path: problem (value "x")`.
func setAttr(v reflect.Value, a *Attr, path, value string) error {
	x, err := a.parseValue(path, value)
	if err != nil {
		return err
	}
	x.assign(v)
	return nil
}

// listRule names the spec rule of a list attribute.
func listRule(a *Attr) string {
	if a.Device == "switch" {
		if a.whole {
			return "switch.md §1, §11 rule 1"
		}
		return "switch.md §1, §11 rule 2"
	}
	if a.Device == "nic" {
		return "nic.md §14, §15"
	}
	return "switch.md §1"
}

func enumRule(a *Attr) string {
	switch a.Device {
	case "switch":
		return "switch.md §3, DC-21"
	case "nic":
		return "nic.md §15"
	}
	return "design.md"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Get returns the value at path formatted in the spec's units (the form Set accepts).
func (c *Config) Get(path string) (string, error) {
	a, v, err := c.value(path)
	if err != nil {
		return "", err
	}
	return a.Type.format(v), nil
}

// Column returns the value at path as a jobs column holds it (see the table of Kind):
// what the sweep's constraints compare.
func (c *Config) Column(path string) (any, error) {
	a, v, err := c.value(path)
	if err != nil {
		return nil, err
	}
	return a.Type.column(a.Path, v)
}

// value returns the attribute at path and its field value in c.
func (c *Config) value(path string) (*Attr, reflect.Value, error) {
	a, err := resolve(path)
	if err != nil {
		return nil, reflect.Value{}, err
	}
	if a == nil {
		parts := strings.Split(path, ".")
		n, _ := mixPath(parts)
		if n >= len(c.Workload.Mix) {
			return nil, reflect.Value{}, fmt.Errorf("%s: workload.mix has %d entries", path, len(c.Workload.Mix))
		}
		a = attrByPath["workload."+parts[3]]
		return a, reflect.ValueOf(&c.Workload.Mix[n]).Elem().FieldByIndex(a.index[1:]), nil
	}
	if a.Device == "tiers" {
		return a, c.tierValue(a), nil
	}
	return a, reflect.ValueOf(c).Elem().FieldByIndex(a.index), nil
}

// FieldError is a problem with one attribute's value. Error() reads
// `file:line:col: path: problem (value "x")`, the position omitted when unknown.
type FieldError struct {
	Pos   string // "spec.yaml:9:3" or ""
	Path  string // canonical or user path
	Value string // the offending value as given
	Msg   string // the problem, citing the rule
}

func (e *FieldError) Error() string {
	var b strings.Builder
	if e.Pos != "" {
		b.WriteString(e.Pos)
		b.WriteString(": ")
	}
	b.WriteString(e.Path)
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Value != "" {
		fmt.Fprintf(&b, " (value %q)", e.Value)
	}
	return b.String()
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
