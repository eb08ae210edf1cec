package config

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Each kind parses its text once into a value that Column, SetValue and Get agree on.
func TestKindParseColumnFormat(t *testing.T) {
	for _, tc := range []struct {
		path, text string
		kind       Kind
		column     any
		get        string // Get after SetValue
	}{
		{"switch.SharedBufferManager.TotalSharedBufferSize", "0.7MB", KindBytes, int64(700000), "700KB"},
		{"nic.HostInterface.NICSide.TransactionLayer.RXHeaderBufferSize", "2MiB", KindQueueSize, int64(2097152), "2MiB"},
		{"global.Mtu", "9000", KindBytes, int64(9000), "9KB"},
		{"nic.NetworkInterface.UplinkNetworkInterface.DataRate", "400Gbps", KindDataRate, 4e11, "400Gbps"},
		{"switch.LoadBalancingFlowlet.Gap", "500ns", KindTimeVal, 5e-7, "500ns"},
		{"global.NDStatsReportInterval", "0.00001", KindTimeVal, 1e-5, "10us"},
		{"switch.SharedBufferManager.LossyAlpha", "0.25", KindDouble, 0.25, "0.25"},
		{"nic.HostInterface.HostSide.PhysicalLayer.LaneCount", "16", KindUint, int64(16), "16"},
		{"workload.senders", "7", KindInt, int64(7), "7"},
		{"nic.ECNHandler.EnableECN", "false", KindBool, false, "false"},
		{"nic.NetworkInterface.EgressBufferManager.QueueSchedulingType", " RoundRobin ", KindString, "RoundRobin", "RoundRobin"},
		{"switch.SharedBufferManager.EnablePFC", "[1, 0, 0, 0, 0, 0, 0, 0]", KindVector, "[1, 0, 0, 0, 0, 0, 0, 0]", "[1, 0, 0, 0, 0, 0, 0, 0]"},
		{"tiers.spine.switch.SharedBufferManager.LossyAlpha", "2", KindDouble, 2.0, "2"},
		{"tiers.rack.uplink.rate", "100Gbps", KindDataRate, 1e11, "100Gbps"},
	} {
		a, ok := Lookup(tc.path)
		if !ok {
			t.Fatalf("%s: not in the schema", tc.path)
		}
		if a.Type != tc.kind {
			t.Errorf("%s: kind %s, want %s", tc.path, a.Type, tc.kind)
		}
		v, err := a.Parse(tc.text)
		if err != nil {
			t.Errorf("%s: Parse(%q): %v", tc.path, tc.text, err)
			continue
		}
		col, err := v.Column()
		if err != nil || col != tc.column {
			t.Errorf("%s: Column() = %#v, %v; want %#v", tc.path, col, err, tc.column)
		}
		if got := reflect.TypeOf(col); got != a.Type.Column() {
			t.Errorf("%s: column value is %s, the kind's column %s", tc.path, got, a.Type.Column())
		}
		c := Default()
		c.SetValue(v)
		if got, _ := c.Get(tc.path); got != tc.get {
			t.Errorf("%s: Get after SetValue = %q, want %q", tc.path, got, tc.get)
		}
		if got, err := c.Column(tc.path); err != nil || got != tc.column {
			t.Errorf("%s: Config.Column = %#v, %v; want %#v", tc.path, got, err, tc.column)
		}
		// Set of the same text gives the same config as SetValue.
		d := Default()
		if err := d.Set(tc.path, tc.text); err != nil || !reflect.DeepEqual(c, d) {
			t.Errorf("%s: Set(%q) differs from SetValue (err %v)", tc.path, tc.text, err)
		}
	}
}

// The checks of one value are Parse's, and Set reports them the same way.
func TestKindParseRefuses(t *testing.T) {
	for _, tc := range []struct{ path, text, want string }{
		{"switch.SharedBufferManager.TotalSharedBufferSize", "5GB", "exceeds the largest switch size"},
		{"nic.HostInterface.NICSide.PhysicalLayer.LaneCount", "17", "LaneCount 17 outside 1-16"},
		{"nic.NetworkInterface.EgressBufferManager.QueueSchedulingType", "RR", "not one of StrictPriority, RoundRobin, WeightedRoundRobin"},
		{"switch.SharedBufferManager.EnablePFC", "[0.5, 0, 0, 0, 0, 0, 0, 0]", "switch.md §1, §11 rule 1"},
		{"workload.mix", "[]", "is a list of workloads"},
	} {
		a, _ := Lookup(tc.path)
		_, err := a.Parse(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), tc.path+": ") {
			t.Errorf("%s: Parse(%q) = %v, want %q", tc.path, tc.text, err, tc.want)
		}
		c := Default()
		if serr := c.Set(tc.path, tc.text); serr == nil || err == nil || serr.Error() != err.Error() {
			t.Errorf("%s: Set(%q) = %v, Parse %v", tc.path, tc.text, serr, err)
		}
	}
}

// The kinds print by name, in the schema's JSON too, and read back.
func TestKindNames(t *testing.T) {
	for k := KindUint; k <= KindList; k++ {
		var back Kind
		if err := back.UnmarshalText([]byte(k.String())); err != nil || back != k {
			t.Errorf("%d: %q reads back as %d (%v)", k, k, back, err)
		}
	}
	a, _ := Lookup("nic.HostInterface.NICSide.TransactionLayer.RXHeaderBufferSize")
	b, _ := json.Marshal(a)
	if !strings.Contains(string(b), `"type":"queuesize"`) || !strings.Contains(string(b), `"unit":"B"`) {
		t.Errorf("schema JSON %s", b)
	}
}

// A range point is rounded to the kind's resolution, in the units it is printed in.
func TestKindRangeText(t *testing.T) {
	for _, tc := range []struct {
		k    Kind
		x    float64
		want string
	}{
		{KindBytes, 699999.6, "700KB"},
		{KindTimeVal, 1.5e-6, "1500ns"},
		{KindDataRate, 2.5e10, "25Gbps"},
		{KindDataRate, 999.4, "999bps"},
		{KindUint, 3.5, "4"},
		{KindDouble, 0.1, "0.1"},
	} {
		if got := tc.k.RangeText(tc.x); got != tc.want {
			t.Errorf("%s.RangeText(%v) = %q, want %q", tc.k, tc.x, got, tc.want)
		}
	}
}
