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
