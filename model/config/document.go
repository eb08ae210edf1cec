package config

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

// DecodeOne parses data as exactly one YAML document and returns its document node
// (empty for an empty file). A second document (after a `---` line) is refused: yaml.v3's
// Unmarshal reads only the first, so its keys would be ignored without a word.
func DecodeOne(file string, data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, yamlSyntaxErr(file, data, err)
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
		if err := duplicateKeys(file, &doc, ""); err != nil {
			return nil, err
		}
		return &doc, nil
	case err != nil:
		return nil, yamlSyntaxErr(file, data, err)
	}
	line := next.Line
	if len(next.Content) > 0 {
		line = next.Content[0].Line
	}
	return nil, fmt.Errorf("%s:%d: a second YAML document (after a '---' line); a spec is one document: merge the keys, or write two specs", file, line)
}

// duplicateKeys refuses a mapping anywhere in n that gives a key twice, naming both
// places: yaml.v3 keeps the last of them without a word, so `replicates: 2` followed by
// `replicates: 3`, or two `sweep:` blocks, would run what the reader did not see.
// path names n's place for the message ("sweep.grid").
func duplicateKeys(file string, n *yaml.Node, path string) error {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if err := duplicateKeys(file, c, path); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if err := duplicateKeys(file, c, join(path, fmt.Sprint(i))); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		first := map[string]*yaml.Node{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.Tag != "!!merge" {
				if was, dup := first[k.Value]; dup {
					return fmt.Errorf("%s:%d:%d: %s: set twice (first at line %d:%d); YAML keeps only the last, so give each key once",
						file, k.Line, k.Column, join(path, k.Value), was.Line, was.Column)
				}
				first[k.Value] = k
			}
			if err := duplicateKeys(file, v, join(path, k.Value)); err != nil {
				return err
			}
		}
	}
	return nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
