package config

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// jobKeys are the top-level keys ApplyNode accepts.
var jobKeys = []string{"name", "seed", "duration", "stop", "report_interval", "global", "topology", "workload", "switch", "nic", "tiers"}

// Load parses a single-job spec: Default() with the YAML document applied, the top-level
// keys that are not the job's (RegisterTopKeys) ignored. file names the spec in errors (file:line:col). Load does not
// validate; call Validate.
func Load(file string, data []byte) (Config, error) {
	c := Default()
	doc, err := DecodeOne(file, data)
	if err != nil {
		return c, err
	}
	if len(doc.Content) == 0 { // empty document: all defaults
		return c, nil
	}
	return c, c.ApplyNode(file, doc.Content[0], outerKeys...)
}

// pos formats a node's position as file:line:col.
func pos(file string, n *yaml.Node) string { return fmt.Sprintf("%s:%d:%d", file, n.Line, n.Column) }

// ApplyNode applies a YAML mapping of job keys (name, seed, duration, stop,
// report_interval, global, topology, workload, switch, nic) to c. Keys in skip are
// ignored (the sweep's own). Under switch and nic, keys may nest by component
// (`switch: {SharedBufferManager: {LossyAlpha: 1}}`), use short names
// (`switch: {LossyAlpha: 1}`) or dotted partial paths; a top-level key may also be a
// dotted path (`switch.LossyAlpha: 1`). Errors read `file:line:col: path: problem
// (value "x")`; all problems found are joined.
func (c *Config) ApplyNode(file string, n *yaml.Node, skip ...string) error {
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("%s: the spec must be a mapping of keys (name, seed, duration, topology, workload, switch, nic, ...)", pos(file, n))
	}
	ap := applier{c: c, file: file, seen: map[string]*yaml.Node{}}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := k.Value
		if contains(skip, key) {
			continue
		}
		switch {
		case key == "global" || key == "topology" || key == "workload" || key == "switch" || key == "nic":
			if v.Kind == yaml.MappingNode {
				ap.mapping(key, nil, v)
				continue
			}
			ap.fail(v, key, nodeText(v), fmt.Sprintf("%s takes a mapping of attributes", key))
		case key == "tiers":
			ap.tiers(nil, v)
		case contains(jobKeys, key) || strings.Contains(key, "."):
			ap.value(k, key, v)
		default:
			if home := misplaced(key); home != "" {
				ap.fail(k, key, "", "not a top-level key: "+home)
				continue
			}
			ap.fail(k, key, "", "unknown key"+suggest(key, append(append([]string{}, jobKeys...), skip...)))
		}
	}
	return errors.Join(ap.errs...)
}

// applier carries the state of one ApplyNode call.
type applier struct {
	c    *Config
	file string
	seen map[string]*yaml.Node // canonical path → key node, to refuse a key set twice
	errs []error
}

func (ap *applier) fail(n *yaml.Node, path, value, msg string) {
	ap.errs = append(ap.errs, &FieldError{Pos: pos(ap.file, n), Path: path, Value: value, Msg: msg})
}

// mapping applies the keys of v under device and components comps.
func (ap *applier) mapping(device string, comps []string, v *yaml.Node) {
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		sub := append(append([]string{}, comps...), strings.Split(k.Value, ".")...)
		path := device + "." + strings.Join(sub, ".")
		if val.Kind == yaml.MappingNode && !(device == "workload") {
			if !ap.isComponent(device, sub) {
				ap.fail(k, path, "", "unknown component"+suggestPath(path, componentPaths(device)))
				continue
			}
			ap.mapping(device, sub, val)
			continue
		}
		ap.value(k, path, val)
	}
}

// tiers applies a `tiers:` mapping (tiers.go): tier → {switch: {...}, uplink: {...}},
// nested or dotted at any level; every leaf becomes the path tiers.<key>.<key>...
func (ap *applier) tiers(prefix []string, v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		path := "tiers"
		if len(prefix) > 0 {
			path += "." + strings.Join(prefix, ".")
		}
		ap.fail(v, path, nodeText(v), "want a mapping: tiers: {spine: {switch: {LossyAlpha: 0.5}, uplink: {rate: 800Gbps, delay: 1us}}}")
		return
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		sub := append(append([]string{}, prefix...), strings.Split(k.Value, ".")...)
		if val.Kind == yaml.MappingNode {
			ap.tiers(sub, val)
			continue
		}
		ap.value(k, "tiers."+strings.Join(sub, "."), val)
	}
}

// isComponent reports whether comps is an ordered subsequence of some attribute's
// component list (excluding its name) in device.
func (ap *applier) isComponent(device string, comps []string) bool {
	for _, a := range attrs {
		if a.Device == device && subsequence(comps, a.comps[:len(a.comps)-1]) {
			return true
		}
	}
	return false
}

// componentPaths lists device.Component paths for suggestions.
func componentPaths(device string) []string {
	seen := map[string]bool{}
	var out []string
	for _, a := range attrs {
		if a.Device != device {
			continue
		}
		for j := 0; j < len(a.comps)-1; j++ {
			p := device + "." + a.comps[j]
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// value applies one key: path → the node val (scalar or sequence).
func (ap *applier) value(k *yaml.Node, path string, val *yaml.Node) {
	a, err := resolve(path)
	if err != nil {
		ap.errs = append(ap.errs, fmt.Errorf("%s: %w", pos(ap.file, k), err))
		return
	}
	canon := path
	if a != nil {
		canon = a.Path
	}
	if first, ok := ap.seen[canon]; ok {
		ap.fail(k, path, "", fmt.Sprintf("set twice (first at line %d:%d)", first.Line, first.Column))
		return
	}
	ap.seen[canon] = k
	if a != nil && a.Type == KindList {
		ap.mix(a, val)
		return
	}
	text, err := scalarText(a, val)
	if err != nil {
		ap.fail(val, path, nodeText(val), err.Error())
		return
	}
	if err := ap.c.Set(canon, text); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			fe.Pos, fe.Path = pos(ap.file, val), path
			ap.errs = append(ap.errs, fe)
			return
		}
		ap.errs = append(ap.errs, fmt.Errorf("%s: %w", pos(ap.file, val), err))
	}
}

// scalarText returns the text Set parses for node val: a scalar's value, or a sequence
// of scalars as a bracket list (vectors only).
func scalarText(a *Attr, val *yaml.Node) (string, error) {
	if val.Kind == yaml.AliasNode {
		val = val.Alias
	}
	switch val.Kind {
	case yaml.ScalarNode:
		if val.Tag == "!!null" {
			return "", errors.New("no value")
		}
		return val.Value, nil
	case yaml.SequenceNode:
		if a != nil && a.Type != KindVector {
			return "", fmt.Errorf("a list where a %s is expected", a.Type)
		}
		parts := make([]string, len(val.Content))
		for i, e := range val.Content {
			if e.Kind != yaml.ScalarNode {
				return "", fmt.Errorf("list entry %d is not a plain value", i)
			}
			if strings.Contains(e.Value, ",") {
				return "", fmt.Errorf("list entry %d %q contains a comma", i, e.Value)
			}
			parts[i] = e.Value
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	}
	want := "a value"
	if a != nil {
		want = "a " + a.Type.String()
	}
	return "", fmt.Errorf("a mapping where %s is expected", want)
}

// nodeText is a short rendering of a node for error messages.
func nodeText(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Value
	case yaml.SequenceNode:
		return fmt.Sprintf("a list of %d", len(n.Content))
	case yaml.MappingNode:
		return "a mapping"
	}
	return ""
}

// mix applies workload.mix: a sequence of workload mappings, each starting from
// DefaultWorkload() (a nested mix is refused).
func (ap *applier) mix(a *Attr, val *yaml.Node) {
	if val.Kind != yaml.SequenceNode {
		ap.fail(val, a.Path, nodeText(val), "workload.mix takes a list of workloads ({kind: incast, senders: 4, ...})")
		return
	}
	list := make([]Workload, len(val.Content))
	for i, e := range val.Content {
		list[i] = DefaultWorkload()
		if e.Kind != yaml.MappingNode {
			ap.fail(e, fmt.Sprintf("workload.mix.%d", i), nodeText(e), "a mix entry is a mapping of workload keys")
			continue
		}
		for j := 0; j+1 < len(e.Content); j += 2 {
			k, v := e.Content[j], e.Content[j+1]
			path := "workload.mix." + strconv.Itoa(i) + "." + k.Value
			wa, ok := attrByPath["workload."+k.Value]
			if !ok || wa.Type == KindList {
				ap.fail(k, path, "", "unknown workload key"+suggest(k.Value, workloadKeys()))
				continue
			}
			text, err := scalarText(wa, v)
			if err != nil {
				ap.fail(v, path, nodeText(v), err.Error())
				continue
			}
			fv := reflect.ValueOf(&list[i]).Elem().FieldByIndex(wa.index[1:])
			if err := setAttr(fv, wa, path, text); err != nil {
				var fe *FieldError
				if errors.As(err, &fe) {
					fe.Pos = pos(ap.file, v)
				}
				ap.errs = append(ap.errs, err)
			}
		}
	}
	ap.c.Workload.Mix = list
}
