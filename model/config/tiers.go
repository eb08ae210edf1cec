package config

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/rocesweep/rocesweep/model/sim"
)

// Switch tiers by the numbers the records use (records.md §2): 0 spine, 1 fabric, 2 rack.
const (
	TierSpine  = 0
	TierFabric = 1
	TierRack   = 2
)

// TierNames are the tier names of a `tiers:` block, indexed by the records' tier number
// (records.md §2). A leaf of a leaf-spine and an edge switch of a fat tree are rack
// switches; an aggregation switch is a fabric switch; a core switch is a spine.
var TierNames = [3]string{"spine", "fabric", "rack"}

// Tiers holds what a spec sets for one switch tier only: `tiers: {spine:
// {switch: {...}, uplink: {rate, delay}}}`. A tier's switch attributes override the plain
// `switch:` block only where set; the rest of the tier's switches run the plain block.
// Indexed by the records' tier number (TierSpine, TierFabric, TierRack).
type Tiers [3]Tier

// Tier is one tier's overrides. The set bits say which attributes the spec gave (bit
// Attr.bit), so an override equal to the default still counts and an unset one never
// does; the struct stays a value, so a copied Config shares nothing.
type Tier struct {
	Switch Switch
	Uplink Uplink
	set    [2]uint64
}

// Uplink is the cable from a tier's switches up to the next tier (records.md §2 link
// rule, extended to tiers): when set, Rate replaces the operating rate min(upper
// DataRate, lower DataRate) and Delay replaces the lower end's Delay.
type Uplink struct {
	Rate  Rate     `key:"rate" doc:"operating rate of the cables from this tier up (replaces min of both ends' DataRate)"`
	Delay sim.Time `key:"delay" doc:"one-way propagation delay of the cables from this tier up (replaces the lower end's Delay)"`
}

// tierOnlyGlobal are switch attributes a tier cannot set: the fabric writes these records
// on one clock for every switch.
var tierOnlyGlobal = map[string]bool{
	"switch.SharedBufferManager.BufferStatsReportInterval": true,
	"switch.LoadBalancingStatsReportInterval":              true,
	"switch.EnableLoadBalancingStats":                      true,
}

// tierAttrs lists, per tier, the attributes a tier block can set: every switch attribute
// (path tiers.<tier>.switch.<canonical switch path>) then uplink.rate and uplink.delay.
var tierAttrs = buildTierAttrs()

func buildTierAttrs() []Attr {
	ct := reflect.TypeOf(Config{})
	f, ok := ct.FieldByName("Tiers")
	if !ok {
		panic("config: Config has no Tiers field")
	}
	var out []Attr
	ut := reflect.TypeOf(Uplink{})
	for t, name := range TierNames {
		bit := 0
		for _, a := range attrs {
			if a.Device != "switch" {
				continue
			}
			ta := a
			ta.Path = "tiers." + name + "." + a.Path
			ta.Device = "tiers"
			ta.Doc = name + " tier only: " + a.Doc
			ta.index = append([]int{f.Index[0], t, 0}, a.index[1:]...)
			ta.tier, ta.bit, ta.base = t, bit, a.Path
			bit++
			out = append(out, ta)
		}
		for i := 0; i < ut.NumField(); i++ {
			uf := ut.Field(i)
			ta := leaf("tiers", uf.Tag.Get("key"), []string{name, "uplink"}, []int{f.Index[0], t, 1, i}, uf, reflect.ValueOf(Uplink{}).Field(i))
			ta.Default = "-"
			ta.tier, ta.bit = t, bit
			bit++
			out = append(out, ta)
		}
		if bit > 128 {
			panic("config: more tier attributes than Tier.set holds")
		}
	}
	return out
}

// TierSchema returns the attributes of the `tiers:` block (tiers.<tier>.switch.<path>,
// tiers.<tier>.uplink.rate, tiers.<tier>.uplink.delay), for every tier.
func TierSchema() []Attr {
	out := make([]Attr, len(tierAttrs))
	copy(out, tierAttrs)
	return out
}

// Lookup returns the schema entry of a canonical path: an attribute of Schema() or of
// TierSchema(), or a workload key of a mix entry (workload.mix.N.key: the key's entry
// under that path, MixEntry N).
func Lookup(canonical string) (Attr, bool) {
	if a := lookupPtr(canonical); a != nil {
		return *a, true
	}
	return Attr{}, false
}

// resolveTier resolves tiers.<tier>.switch.<path> (path in any form resolve accepts for
// switch.<path>) and tiers.<tier>.uplink.<rate|delay>.
func resolveTier(path string) (*Attr, error) {
	if a, ok := attrByPath[path]; ok {
		return a, nil
	}
	parts := strings.SplitN(path, ".", 4)
	if len(parts) < 2 || tierIndex(parts[1]) < 0 {
		tier := ""
		if len(parts) >= 2 {
			tier = parts[1]
		}
		hint := suggest(tier, TierNames[:])
		if tier == "leaf" || tier == "edge" {
			hint = " (a leaf or edge switch is the rack tier: tiers.rack)"
		} else if tier == "aggregation" {
			hint = " (an aggregation switch is the fabric tier: tiers.fabric)"
		} else if tier == "core" {
			hint = " (a core switch is the spine tier: tiers.spine)"
		}
		return nil, fmt.Errorf("%s: unknown tier %q; tiers are rack, fabric, spine (records.md §2)%s", path, tier, hint)
	}
	if len(parts) < 4 || (parts[2] != "switch" && parts[2] != "uplink") {
		return nil, fmt.Errorf("%s: a tier sets switch.<attribute> or uplink.rate, uplink.delay (tiers.%s.switch.LossyAlpha)", path, parts[1])
	}
	if parts[2] == "uplink" {
		return nil, fmt.Errorf("%s: unknown uplink key (want tiers.%s.uplink.rate or tiers.%s.uplink.delay)%s", path, parts[1], parts[1], suggest(parts[3], []string{"rate", "delay"}))
	}
	base, err := resolve("switch." + parts[3])
	if err != nil {
		return nil, fmt.Errorf("tiers.%s.%w", parts[1], err)
	}
	if tierOnlyGlobal[base.Path] {
		return nil, fmt.Errorf("%s: reports run on one clock for every switch; set %s in the plain switch: block", path, shortest(base.Path))
	}
	return attrByPath["tiers."+parts[1]+"."+base.Path], nil
}

func tierIndex(name string) int {
	for i, n := range TierNames {
		if n == name {
			return i
		}
	}
	return -1
}

// isSet reports whether the tier sets the attribute with bit (Attr.bit of TierSchema).
func (t *Tier) isSet(bit int) bool { return t.set[bit/64]&(1<<(bit%64)) != 0 }

// TierSwitch returns the switch attributes of the given tier (records.md §2 numbering):
// the plain switch block with the tier block's settings on top.
func (c *Config) TierSwitch(tier int) Switch {
	sw := c.Switch
	if tier < 0 || tier >= len(c.Tiers) {
		return sw
	}
	t := &c.Tiers[tier]
	if t.set == [2]uint64{} {
		return sw
	}
	dst, src := reflect.ValueOf(&sw).Elem(), reflect.ValueOf(&t.Switch).Elem()
	for i := range tierAttrs {
		a := &tierAttrs[i]
		if a.tier != tier || a.base == "" || !t.isSet(a.bit) {
			continue
		}
		idx := a.index[3:]
		dst.FieldByIndex(idx).Set(src.FieldByIndex(idx))
	}
	return sw
}

// TierUplink returns the uplink override of the tier: its rate (0 when unset) and delay
// (ok false when unset).
func (c *Config) TierUplink(tier int) (rate Rate, delay sim.Time, delaySet bool) {
	if tier < 0 || tier >= len(c.Tiers) {
		return 0, 0, false
	}
	t := &c.Tiers[tier]
	for i := range tierAttrs {
		a := &tierAttrs[i]
		if a.tier != tier || a.base != "" || !t.isSet(a.bit) {
			continue
		}
		switch a.comps[len(a.comps)-1] {
		case "rate":
			rate = t.Uplink.Rate
		case "delay":
			delay, delaySet = t.Uplink.Delay, true
		}
	}
	return rate, delay, delaySet
}

// TierSettings lists what the tier block of tier sets, as "name value" pairs in schema
// order with short names (LossyAlpha 0.5, uplink.rate 800Gbps); empty when nothing.
func (c *Config) TierSettings(tier int) []string {
	var out []string
	t := &c.Tiers[tier]
	for i := range tierAttrs {
		a := &tierAttrs[i]
		if a.tier != tier || !t.isSet(a.bit) {
			continue
		}
		name := "uplink." + a.comps[len(a.comps)-1]
		if a.base != "" {
			name = strings.TrimPrefix(shortest(a.base), "switch.")
		}
		out = append(out, name+" "+a.Type.format(c.tierField(a)))
	}
	return out
}

// HasTierSettings reports whether any tier block sets anything.
func (c *Config) HasTierSettings() bool {
	for i := range c.Tiers {
		if c.Tiers[i].set != [2]uint64{} {
			return true
		}
	}
	return false
}

// getTier formats tier attribute a (tierValue).
func (c *Config) getTier(a *Attr) string { return a.Type.format(c.tierValue(a)) }

// tierValue is the value of tier attribute a: the tier's own value when set, else the
// value the tier runs with (the plain switch block's; 0 for an unset uplink key).
func (c *Config) tierValue(a *Attr) reflect.Value {
	if c.Tiers[a.tier].isSet(a.bit) {
		return c.tierField(a)
	}
	if a.base == "" {
		return reflect.Zero(reflect.TypeOf(Uplink{})).Field(a.index[3])
	}
	base := attrByPath[a.base]
	return reflect.ValueOf(c).Elem().FieldByIndex(base.index)
}

// tierField is the field of tier attribute a in c (index: Tiers field, tier, then the
// Tier's fields; reflect's FieldByIndex does not step into arrays).
func (c *Config) tierField(a *Attr) reflect.Value {
	return reflect.ValueOf(c).Elem().Field(a.index[0]).Index(a.index[1]).FieldByIndex(a.index[2:])
}

// IsZero reports whether no tier sets anything (json omitzero: a spec without a tiers
// block marshals, and so hashes into job ids and seeds, as before tiers existed).
func (t Tiers) IsZero() bool {
	for i := range t {
		if t[i].set != [2]uint64{} {
			return false
		}
	}
	return true
}

// MarshalJSON writes what each tier sets: {"spine": {"tiers.spine.switch....": "64MB"}}.
func (t Tiers) MarshalJSON() ([]byte, error) {
	c := Config{Tiers: t}
	out := map[string]map[string]string{}
	for i := range tierAttrs {
		a := &tierAttrs[i]
		if !t[a.tier].isSet(a.bit) {
			continue
		}
		name := TierNames[a.tier]
		if out[name] == nil {
			out[name] = map[string]string{}
		}
		out[name][a.Path] = a.Type.format(c.tierField(a))
	}
	return json.Marshal(out)
}
