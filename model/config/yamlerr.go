package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlSyntaxErr turns a yaml.v3 syntax error in data into "file:line:col: what is wrong;
// what to do" when the text shows the slip the parser's words hide: a tab in an
// indentation (yaml.v3: "found character that cannot start any token") or a key indented
// out of line with the keys around it ("mapping values are not allowed in this context",
// "did not find expected key"). Otherwise it is "file:line: YAML syntax: problem"
// (yaml.v3 reports only the line of a syntax error, and not always the right one).
func yamlSyntaxErr(file string, data []byte, err error) error {
	lines := strings.Split(string(data), "\n")
	if n, col := tabIndent(lines); n > 0 {
		return fmt.Errorf("%s:%d:%d: a tab indents this line; YAML indents with spaces: replace the tab with spaces", file, n, col)
	}
	msg := err.Error()
	if strings.Contains(msg, "mapping values are not allowed") || strings.Contains(msg, "did not find expected key") ||
		strings.Contains(msg, "block sequence entries are not allowed") || strings.Contains(msg, "did not find expected '-' indicator") {
		if e := indentSlip(file, lines); e != nil {
			return e
		}
	}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s:%s: YAML syntax: %s", file, m[1], m[2])
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	// Two errors yaml.v3 gives without a line: find the place in the text.
	if m := unknownAnchor.FindStringSubmatch(msg); m != nil {
		if line, col := find(lines, func(l string) int { return strings.Index(l, "*"+m[1]) }); line > 0 {
			return fmt.Errorf("%s:%d:%d: YAML syntax: %s (an alias *%s of no &%s before it)", file, line, col, msg, m[1], m[1])
		}
	}
	if strings.Contains(msg, "control characters are not allowed") {
		if line, col := find(lines, func(l string) int {
			return strings.IndexFunc(l, func(r rune) bool { return r < 0x20 && r != '\t' && r != '\r' || r == 0x7f || r == '\uFFFD' })
		}); line > 0 {
			return fmt.Errorf("%s:%d:%d: YAML syntax: %s (byte %s)", file, line, col, msg, strconvQuoteByte(lines[line-1][col-1]))
		}
	}
	return fmt.Errorf("%s: YAML syntax: %s", file, msg)
}

// unknownAnchor is yaml.v3's error for an alias of no anchor.
var unknownAnchor = regexp.MustCompile(`unknown anchor '([^']*)' referenced`)

// find returns the first line (1-based) where at finds something, and its column
// (1-based, in bytes), or 0, 0.
func find(lines []string, at func(string) int) (line, col int) {
	for i, l := range lines {
		if c := at(l); c >= 0 {
			return i + 1, c + 1
		}
	}
	return 0, 0
}

func strconvQuoteByte(b byte) string { return fmt.Sprintf("0x%02x", b) }

// tabIndent returns the first line (1-based) with a tab in its indentation and the
// tab's column, or 0. A content line is looked for first: a blank line or a comment
// may hold a tab yaml.v3 takes, so one of those is named only when no content line has
// a tab.
func tabIndent(lines []string) (line, col int) {
	fallback, fcol := 0, 0
	for i, l := range lines {
		lead := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		t := strings.IndexByte(lead, '\t')
		if t < 0 {
			continue
		}
		if rest := strings.TrimSpace(l); rest != "" && rest[0] != '#' {
			return i + 1, t + 1
		}
		if fallback == 0 {
			fallback, fcol = i+1, t+1
		}
	}
	return fallback, fcol
}

// level is one open block of a YAML document: its indentation and the line of its
// first key.
type level struct {
	indent int
	line   int    // 1-based
	key    string // "grid:" or "- kind:"
}

// indentSlip finds the first line indented out of line with the block structure above
// it, the slip behind yaml.v3's "mapping values are not allowed in this context" and
// "did not find expected key": a line deeper than the line above when that line already
// has its value (nothing can nest under it), or a line between two open levels (deeper
// than one block's keys, shallower than the next). It returns nil when the indentation
// is consistent (the syntax error is another). It reads block style only: flow
// collections ([...], {...}) and block scalars (|, >) are skipped.
func indentSlip(file string, lines []string) error {
	var stack []level
	opens := true // the previous line leaves a block open (a key with no value, "-")
	prev := level{}
	scalar := -1 // inside a block scalar of the key at this indentation
	flow := 0    // depth of open [ and {
	for n, l := range lines {
		text, depth := stripComment(l)
		content := strings.TrimSpace(text)
		indent := len(text) - len(strings.TrimLeft(text, " "))
		if content == "" || strings.HasPrefix(content, "---") || strings.HasPrefix(content, "...") || strings.HasPrefix(content, "%") {
			flow += depth
			continue
		}
		if scalar >= 0 {
			if indent > scalar {
				continue
			}
			scalar = -1
		}
		if flow > 0 {
			flow += depth
			continue
		}
		flow += depth
		here := level{indent: indent, line: n + 1, key: keyOf(content)}
		switch top := len(stack) - 1; {
		case top < 0:
			stack = append(stack, here)
		case indent > stack[top].indent:
			if !opens {
				beside := stack[top].key
				if prev.indent == stack[top].indent {
					beside = prev.key
				}
				return fmt.Errorf("%s:%d:%d: this key is indented deeper than the keys above it (line %d, %s, has its value, so nothing nests under it); indent it to column %d beside %s, or under a key that ends with ':'",
					file, n+1, indent+1, prev.line, quoteKey(prev.key), stack[top].indent+1, quoteKey(strings.TrimPrefix(beside, "- ")))
			}
			stack = append(stack, here)
		default:
			var inner level // the open level just deeper than this line, which it steps out of
			for len(stack) > 0 && stack[len(stack)-1].indent > indent {
				inner = stack[len(stack)-1]
				stack = stack[:len(stack)-1]
			}
			if len(stack) == 0 || stack[len(stack)-1].indent != indent {
				outer := "the top level (column 1)"
				if len(stack) > 0 {
					o := stack[len(stack)-1]
					outer = fmt.Sprintf("%s (line %d) at column %d", quoteKey(o.key), o.line, o.indent+1)
				}
				return fmt.Errorf("%s:%d:%d: this key is indented less than the keys above it and more than the block around them: %s (line %d) is at column %d, %s; the keys of one mapping line up: indent it to one of those columns",
					file, n+1, indent+1, quoteKey(inner.key), inner.line, inner.indent+1, outer)
			}
		}
		// Sequence entries: "- key: value" opens a mapping at the key's column.
		c, col := content, indent
		for c == "-" || strings.HasPrefix(c, "- ") {
			rest := c[1:]
			k := len(rest) - len(strings.TrimLeft(rest, " "))
			col += 1 + k
			c = rest[k:]
			if c == "" {
				break
			}
			stack = append(stack, level{indent: col, line: n + 1, key: keyOf(c)})
		}
		opens = c == "" || strings.HasSuffix(c, ":") || (strings.HasSuffix(c, "-") && len(c) == 1)
		if isBlockScalar(c) {
			scalar = col
		}
		prev = here
	}
	return nil
}

// keyOf is the key of a content line, with its colon ("grid:", "- kind:"), or the line
// itself when it has no key.
func keyOf(content string) string {
	c := content
	if i := strings.Index(c, ": "); i >= 0 {
		return c[:i+1]
	}
	if strings.HasSuffix(c, ":") {
		return c
	}
	if r := []rune(content); len(r) > 30 {
		return string(r[:30]) + "…"
	}
	return content
}

func quoteKey(k string) string { return "`" + k + "`" }

// isBlockScalar reports a key whose value is a literal or folded block (`key: |`).
func isBlockScalar(c string) bool {
	i := strings.LastIndex(c, ": ")
	if i < 0 {
		return c == "|" || c == ">"
	}
	v := strings.TrimSpace(c[i+2:])
	return v != "" && (v[0] == '|' || v[0] == '>') && strings.Trim(v[1:], "+-0123456789") == ""
}

// stripComment returns line without its comment and the change in flow depth ([ { minus
// ] }) over it, outside quotes.
func stripComment(line string) (string, int) {
	var quote byte
	depth := 0
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			if i == 0 || line[i-1] == ' ' || line[i-1] == '[' || line[i-1] == '{' || line[i-1] == ',' || line[i-1] == ':' {
				quote = ch
			}
		case ch == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return line[:i], depth
		case ch == '[' || ch == '{':
			depth++
		case ch == ']' || ch == '}':
			depth--
		}
	}
	return line, depth
}

// outerBlocks are the blocks of a spec that are not the job's (RegisterBlock), in the
// order registered.
var outerBlocks []outerBlock

type outerBlock struct {
	name string
	keys []string
}

// RegisterBlock names a block of a spec that config does not apply (sweep's `sweep:`)
// and the keys it takes, so that one of those keys written at the top level is reported
// as the block's, as a job block's would be: "`grid` is a key of `sweep:`; indent it
// under `sweep:`". The model knows no block but the job's: the layer that owns a block
// registers it, from an init function (it is not safe to call once specs are parsed).
func RegisterBlock(name string, keys []string) {
	outerBlocks = append(outerBlocks, outerBlock{name: name, keys: slices.Clone(keys)})
}

// outerKeys are the top-level keys of a spec that are not the job's (RegisterTopKeys),
// in the order registered.
var outerKeys []string

// RegisterTopKeys names top-level keys of a spec that config does not apply (sweep's
// `replicates`, `sweep`, `objective` and `select`): Load ignores them and TopKeys lists
// them. As with RegisterBlock, the model knows no sweep: the layer that owns the keys
// registers them, from an init function.
func RegisterTopKeys(keys ...string) { outerKeys = append(outerKeys, keys...) }

// TopKeys are the keys a spec may have at its top level: the job keys and the ones
// registered with RegisterTopKeys.
func TopKeys() []string { return append(append([]string{}, jobKeys...), outerKeys...) }

// misplaced says which block an unknown top-level key belongs to, the slip of a key
// written without its indentation: "`grid` is a key of `sweep:`; indent it under
// `sweep:`", "`LossyAlpha` is a key of `switch:`; ...". "" when it is no block's key.
func misplaced(key string) string {
	var homes []string
	for _, b := range outerBlocks {
		if contains(b.keys, key) {
			homes = append(homes, b.name)
		}
	}
	for _, d := range devices {
		for _, a := range attrs {
			if a.Device == d && a.comps[len(a.comps)-1] == key {
				homes = append(homes, d)
				break
			}
		}
	}
	switch len(homes) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("`%s` is a key of `%s:`; indent it under `%s:`", key, homes[0], homes[0])
	}
	return fmt.Sprintf("`%s` is a key of `%s:`; indent it under the one it belongs to", key, strings.Join(homes, ":` and of `"))
}
