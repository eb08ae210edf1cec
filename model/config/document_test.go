package config

import (
	"strings"
	"testing"
)

// Issue 14 item 11: a second YAML document in a spec was ignored without a word.
func TestLoadRefusesSecondDocument(t *testing.T) {
	_, err := Load("sim.yaml", []byte("duration: 1ms\n---\nduration: 2ms\n"))
	if err == nil || !strings.Contains(err.Error(), "sim.yaml:3: a second YAML document") {
		t.Fatalf("err = %v", err)
	}
	if _, err := Load("sim.yaml", []byte("---\nduration: 1ms\n")); err != nil {
		t.Fatal(err)
	}
}

// Issue 14 item 11: a warning printed "-9,223,372,036,854,775,808 B" for a rate above
// 10¹⁸ bit/s.
func TestWarningsDoNotOverflow(t *testing.T) {
	c := Default()
	for _, set := range []string{"nic.DataRate=1e18Gbps", "switch.DownlinkNetworkInterface.DataRate=1e18Gbps", "switch.UplinkNetworkInterface.DataRate=1e18Gbps"} {
		path, value, _ := strings.Cut(set, "=")
		if err := c.Set(path, value); err != nil {
			t.Fatalf("%s: %v", set, err)
		}
	}
	seen := false
	for _, w := range c.Warnings() {
		if strings.Contains(w, "-9,223,372,036,854,775,808") {
			t.Errorf("overflow in %q", w)
		}
		if strings.Contains(w, "under the guidance") {
			seen = strings.Contains(w, "e+") || t.Failed()
		}
	}
	if !seen {
		t.Errorf("no headroom guidance warning with an exponent: %q", c.Warnings())
	}
	for x, want := range map[float64]string{1e19: "1e+19", -2.5e20: "-2.5e+20", 1234567.4: "1,234,567", 0: "0"} {
		if got := CommasF(x); got != want {
			t.Errorf("CommasF(%g) = %q, want %q", x, got, want)
		}
	}
}
