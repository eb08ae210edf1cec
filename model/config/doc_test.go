package config

import (
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/internal/doctest"
)

// TestDocAttributes checks the attribute tables of docs/switch.md §3 and docs/nic.md §14
// against the schema: every documented attribute exists with the documented default, and
// every attribute of the device is documented.
func TestDocAttributes(t *testing.T) {
	for _, c := range []struct{ page, device string }{
		{"switch.md", "switch"},
		{"nic.md", "nic"},
		{"nic.md", "global"},
	} {
		t.Run(c.device, func(t *testing.T) { checkDocAttributes(t, c.page, c.device) })
	}
}

func checkDocAttributes(t *testing.T, page, device string) {
	documented := map[string]bool{}
	for _, tb := range doctest.LoadAll(t, page, "attributes "+device) {
		for _, row := range tb.Rows {
			name := strings.Trim(row[0], "`")
			a, err := resolve(device + "." + name)
			if err != nil {
				t.Errorf("%s: attribute %q: %v", tb.Where(), name, err)
				continue
			}
			documented[a.Path] = true
			if got := strings.Trim(tb.Cell(t, row[0], "default"), "`"); got != a.Default {
				t.Errorf("%s: %s default %q in the docs, %q in the schema (rocesweep defaults)", tb.Where(), name, got, a.Default)
			}
		}
		tb.AllChecked(t)
	}
	for _, a := range Schema() {
		if a.Device == device && !documented[a.Path] {
			t.Errorf("docs/%s: attribute %s is not documented (add a row to a table marked <!-- doctest: attributes %s -->)", page, a.Path, device)
		}
	}
}
