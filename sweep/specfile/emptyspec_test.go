package specfile

import (
	"strings"
	"testing"
)

// TestEmptySpecRefused: a SPEC file that holds no YAML document (empty, /dev/null,
// comments or blank lines only) is refused, naming the file, instead of running the
// built-in defaults; the defaults' own spec (sim and explain given no SPEC) may be empty.
func TestEmptySpecRefused(t *testing.T) {
	for _, tc := range []struct {
		file, text string
		ok         bool
	}{
		{"spec.yaml", "", false},
		{"/dev/null", "", false},
		{"spec.yaml", "# a study, to be written\n\n", false},
		{"spec.yaml", "\n\n   \n", false},
		{"spec.yaml", "{}\n", true}, // a mapping of no keys: the defaults, said explicitly
		{"spec.yaml", "name: a\n", true},
		{DefaultsFile, "", true},
	} {
		_, err := Parse(tc.file, []byte(tc.text), []string{"duration=1ms"})
		want := tc.file + ": the spec is empty (no YAML document)"
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s %q: %v", tc.file, tc.text, err)
		case !tc.ok && (err == nil || !strings.HasPrefix(err.Error(), want)):
			t.Errorf("%s %q: %v, want %q", tc.file, tc.text, err, want)
		}
	}
}
