package explain

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
)

// Tiers of the same set-up are one section, named by their tiers and counts, with their
// links together; a tier of its own keeps its name.
func TestSheetSections(t *testing.T) {
	a := Switch{Config: "switch", ConnectedPorts: 16, Links: []Link{{Link: "host-edge"}}}
	tiers := []Switch{a, a, a}
	tiers[0].Tier, tiers[0].Count = "edge", 8
	tiers[1].Tier, tiers[1].Count = "aggregation", 8
	tiers[2].Tier, tiers[2].Count, tiers[2].Config = "core", 4, "switch + tiers.core (LossyAlpha 0.5)"
	got := sheetSections(tiers)
	if len(got) != 2 || got[0].Tier != "edge and aggregation switches (8 and 8 of them)" || len(got[0].Links) != 2 ||
		got[1].Tier != "core switches (4 of them)" || len(got[1].Links) != 1 {
		t.Errorf("sections %+v", got)
	}
	one := sheetSections([]Switch{{Tier: "rack", Count: 1}})
	if len(one) != 1 || one[0].Tier != "rack switch (1 of them)" {
		t.Errorf("one rack switch: %+v", one)
	}
}

// The sheet of the defaults opens with the topology and ends with the warnings, one a line.
func TestWriteSheet(t *testing.T) {
	cfg := config.Default()
	e, _, err := Explain(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	e.WriteSheet(&b, []string{"first", "second"})
	s := b.String()
	if !strings.HasPrefix(s, "topology: star, 16 hosts, 1 switch\n") || !strings.HasSuffix(s, "\nwarnings:\n  ! first\n  ! second\n") ||
		!strings.Contains(s, "\nNIC   [nic.md §11, §12, §17]\n") {
		t.Errorf("sheet:\n%s", s)
	}
}
