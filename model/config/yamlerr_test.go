package config

import (
	"strings"
	"testing"
)

// A YAML slip is reported where it is, in the words of the slip, with what to do.
func TestYAMLSlips(t *testing.T) {
	for _, tc := range []struct{ name, spec, want string }{
		{"tab indents a top-level key", "name: x\n\tseed: 3\n",
			"x.yaml:2:1: a tab indents this line; YAML indents with spaces: replace the tab with spaces"},
		{"tab indents a switch key", "name: x\nswitch:\n\tLossyAlpha: 1\n",
			"x.yaml:3:1: a tab indents this line; YAML indents with spaces: replace the tab with spaces"},
		{"tab after spaces, yaml.v3 names the line above", "switch:\n  LossyAlpha: 1\n  \tMtu: 3\n",
			"x.yaml:3:3: a tab indents this line"},
		{"key deeper than the key above", "name: x\nduration: 1ms\n  seed: 4\n",
			"x.yaml:3:3: this key is indented deeper than the keys above it (line 2, `duration:`, has its value, so nothing nests under it); indent it to column 1 beside `duration:`, or under a key that ends with ':'"},
		{"switch key deeper than its neighbour", "switch:\n  LossyAlpha: 1\n    Mtu: 2\n",
			"x.yaml:3:5: this key is indented deeper than the keys above it (line 2, `LossyAlpha:`, has its value"},
		{"axis deeper than the axis above", "sweep:\n  grid:\n    switch.LossyAlpha: [1, 2]\n      seed: 3\n",
			"x.yaml:4:7: this key is indented deeper than the keys above it (line 3, `switch.LossyAlpha:`, has its value, so nothing nests under it); indent it to column 5 beside `switch.LossyAlpha:`"},
		{"mix entry key deeper than its neighbour", "workload:\n  kind: mix\n  mix:\n    - kind: incast\n      senders: 3\n        messages: 2\n",
			"x.yaml:6:9: this key is indented deeper than the keys above it (line 5, `senders:`"},
		{"key between two levels", "sweep:\n    grid: {}\n  zip: {}\n",
			"x.yaml:3:3: this key is indented less than the keys above it and more than the block around them: `grid:` (line 2) is at column 5, `sweep:` (line 1) at column 1; the keys of one mapping line up: indent it to one of those columns"},
		{"key one space short", "sweep:\n  grid:\n    a: [1]\n   b: [2]\n",
			"x.yaml:4:4: this key is indented less than the keys above it and more than the block around them: `a:` (line 3) is at column 5, `grid:` (line 2) at column 3"},
		{"mix entry key one space short", "workload:\n  kind: mix\n  mix:\n    - kind: incast\n      senders: 3\n     messages: 2\n",
			"x.yaml:6:6: this key is indented less than the keys above it and more than the block around them: `kind:` (line 4) is at column 7, `- kind:` (line 4) at column 5"},
		{"block scalar lines are not keys", "name: |\n  text\n    more\nseed: 1\n  x: 2\n",
			"x.yaml:5:3: this key is indented deeper than the keys above it (line 4, `seed:`"},
		{"flow list over lines, then a slip", "switch:\n  PoolAllocationMap: [1, 0,\n      0, 0, 0, 0, 0, 0]\n  LossyAlpha: 1\n    Mtu: 2\n",
			"x.yaml:5:5: this key is indented deeper than the keys above it (line 4, `LossyAlpha:`"},
		{"comments and a '#' in quotes are not structure", "# top\nname: 'a # b'\n      # deep comment\nduration: 1ms\n  seed: 4\n",
			"x.yaml:5:3: this key is indented deeper than the keys above it (line 4, `duration:`"},
		{"other syntax errors keep the parser's words", "switch: {LossyAlpha: 1\n",
			"x.yaml:1: YAML syntax: did not find expected ',' or '}'"},
		{"an unclosed quote", "name: 'x\n", "x.yaml:2: YAML syntax: found unexpected end of stream"},
		{"grid at the top level", "name: x\ngrid:\n  switch.LossyAlpha: [1]\n",
			"x.yaml:2:1: grid: not a top-level key: `grid` is a key of `sweep:`; indent it under `sweep:`"},
		{"zip at the top level", "zip: {switch.LossyAlpha: [1]}\n",
			"x.yaml:1:1: zip: not a top-level key: `zip` is a key of `sweep:`; indent it under `sweep:`"},
		{"switch attribute at the top level", "LossyAlpha: 1\n",
			"x.yaml:1:1: LossyAlpha: not a top-level key: `LossyAlpha` is a key of `switch:`; indent it under `switch:`"},
		{"workload key at the top level", "senders: 3\n",
			"x.yaml:1:1: senders: not a top-level key: `senders` is a key of `workload:`; indent it under `workload:`"},
		{"global key at the top level", "Mtu: 1500\n",
			"x.yaml:1:1: Mtu: not a top-level key: `Mtu` is a key of `global:`; indent it under `global:`"},
		{"a key of two blocks", "Delay: 1us\n",
			"x.yaml:1:1: Delay: not a top-level key: `Delay` is a key of `switch:` and of `nic:`; indent it under the one it belongs to"},
		{"a key of two components of one block", "TotalBufferSize: 1MB\n",
			"x.yaml:1:1: TotalBufferSize: not a top-level key: `TotalBufferSize` is a key of `nic:`; indent it under `nic:`"},
		{"a tab on a blank line", "name: x\n\t\nseed: 3\n",
			"x.yaml:2:1: a tab indents this line; YAML indents with spaces: replace the tab with spaces"},
		{"a tab before a comment", "name: x\n\t# c\nseed: 3\n",
			"x.yaml:2:1: a tab indents this line"},
		{"a misspelt key still gets its suggestion", "topolgy: {hosts: 4}\n",
			"x.yaml:1:1: topolgy: unknown key (did you mean topology?)"},
	} {
		_, err := Load("x.yaml", []byte(tc.spec))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %q:\n  got  %v\n  want %s", tc.name, tc.spec, err, tc.want)
		}
	}
}

// Tabs in comments, blank lines and after a key's colon are no slip: such a spec loads.
func TestYAMLTabsAllowed(t *testing.T) {
	for _, spec := range []string{
		"name: x\t# a comment after a tab\nseed: 3\n",
		"name:\tx\n",
		"name: x\n  \t\nseed: 3\n",
	} {
		if _, err := Load("x.yaml", []byte(spec)); err != nil {
			t.Errorf("%q: %v", spec, err)
		}
	}
}

// FuzzLoad: any text loads or gives an error naming the file, never a panic.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		"name: x\n\tseed: 3\n", "name: x\nduration: 1ms\n  seed: 4\n", "sweep:\n    grid: {}\n  zip: {}\n",
		"workload:\n  mix:\n    - kind: incast\n      senders: 3\n     messages: 2\n", "name: |\n  a\n b: 1\n",
		"a: [1,\n  2]\n   b: 1\n", "- - x\n  - y\n - z\n", "grid: 1\n", "'a: 1\n  b: 2\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		_, err := Load("f.yaml", []byte(text))
		if err != nil && !strings.HasPrefix(err.Error(), "f.yaml") {
			t.Fatalf("%q: error %q does not name the file", text, err)
		}
	})
}
