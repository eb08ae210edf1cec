package config

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model/sim"
)

// A tier block overrides only what it sets; the other tiers run the plain switch block.
func TestTierOverridesOnlyWhatItSets(t *testing.T) {
	c, err := Load("t.yaml", []byte(`
switch: {LossyAlpha: 2, StaticPoolXoffThreshold: 600KB}
tiers:
  spine: {switch: {TotalSharedBufferSize: 64MB, SharedBufferManager.LossyAlpha: 1}, uplink: {rate: 800Gbps, delay: 1us}}
  rack:
    switch:
      SharedBufferManager: {LossyAlpha: 0.5}
`))
	if err != nil {
		t.Fatal(err)
	}
	sp, rk, fb := c.TierSwitch(TierSpine), c.TierSwitch(TierRack), c.TierSwitch(TierFabric)
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"spine buffer", sp.SharedBufferManager.TotalSharedBufferSize, Bytes(64_000_000)},
		{"spine alpha", sp.SharedBufferManager.LossyAlpha, 1.0},
		{"spine xoff (plain block)", sp.SharedBufferManager.StaticPoolXoffThreshold, Bytes(600_000)},
		{"rack alpha", rk.SharedBufferManager.LossyAlpha, 0.5},
		{"rack buffer (default)", rk.SharedBufferManager.TotalSharedBufferSize, Bytes(256_000_000)},
		{"fabric = plain", fb.SharedBufferManager.LossyAlpha, 2.0},
		{"plain untouched", c.Switch.SharedBufferManager.LossyAlpha, 2.0},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	r, d, ok := c.TierUplink(TierSpine)
	if r != 800e9 || d != sim.Microsecond || !ok {
		t.Errorf("spine uplink: %v %v %v", r, d, ok)
	}
	if r, _, ok := c.TierUplink(TierRack); r != 0 || ok {
		t.Errorf("rack uplink unset: %v %v", r, ok)
	}
	got := strings.Join(c.TierSettings(TierSpine), "; ")
	if want := "TotalSharedBufferSize 64MB; LossyAlpha 1; uplink.rate 800Gbps; uplink.delay 1us"; got != want {
		t.Errorf("spine settings %q, want %q", got, want)
	}
	// A copy shares nothing: setting the copy's tier leaves the original alone.
	d2 := c
	if err := d2.Set("tiers.rack.switch.LossyAlpha", "4"); err != nil {
		t.Fatal(err)
	}
	if c.TierSwitch(TierRack).SharedBufferManager.LossyAlpha != 0.5 || d2.TierSwitch(TierRack).SharedBufferManager.LossyAlpha != 4 {
		t.Error("a Config copy shares its tier block")
	}
}

func TestTierPaths(t *testing.T) {
	for _, tc := range []struct{ path, canon, err string }{
		{"tiers.spine.switch.LossyAlpha", "tiers.spine.switch.SharedBufferManager.LossyAlpha", ""},
		{"tiers.rack.switch.LossyAlfa", "", "did you mean switch.LossyAlpha"},
		{"tiers.rack.uplink.delay", "tiers.rack.uplink.delay", ""},
		{"tiers.leaf.switch.LossyAlpha", "", "tiers.rack"},
		{"tiers.spine.uplink.speed", "", "unknown uplink key"},
		{"tiers.spine.switch.BufferStatsReportInterval", "", "plain switch: block"},
	} {
		got, err := Canonical(tc.path)
		if tc.err == "" {
			if err != nil || got != tc.canon {
				t.Errorf("%s: got %q, %v; want %q", tc.path, got, err, tc.canon)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: error %v, want one containing %q", tc.path, err, tc.err)
		}
	}
	c := Default()
	if v, _ := c.Get("tiers.spine.switch.LossyAlpha"); v != "1" {
		t.Errorf("unset tier attribute reads the plain block's value, got %q", v)
	}
	if _, err := Load("t.yaml", []byte("tiers: {spine: {switch: {LossyAlpha: x}}}\n")); err == nil || !strings.Contains(err.Error(), "t.yaml:1:") {
		t.Errorf("bad tier value: %v", err)
	}
}

// A config without tiers marshals as before tiers existed (job ids and seeds hash the
// JSON); one with tiers carries what they set.
func TestTiersJSON(t *testing.T) {
	c := Default()
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "tiers") || strings.Contains(string(data), "Tiers") {
		t.Errorf("default config JSON mentions tiers: %s", data)
	}
	if err := c.Set("tiers.spine.switch.LossyAlpha", "1"); err != nil { // equal to the plain block's: still a setting
		t.Fatal(err)
	}
	data, _ = json.Marshal(c)
	if !strings.Contains(string(data), `"tiers":{"spine":{"tiers.spine.switch.SharedBufferManager.LossyAlpha":"1"}}`) {
		t.Errorf("tiers JSON: %s", data)
	}
}
