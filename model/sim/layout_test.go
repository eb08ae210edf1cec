package sim

import (
	"testing"
	"unsafe"
)

// TestEngineLayout pins the sizes the engine's cache behaviour rests on: a pending entry is
// 16 bytes (four to a line in a bucket), an event payload 16, and a timer's slot (tie,
// time and payload) 32, half a line: one line read arms, checks or delivers a timer.
func TestEngineLayout(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"size of entry", unsafe.Sizeof(entry{}), 16},
		{"size of payload", unsafe.Sizeof(payload{}), 16},
		{"size of timerSlot", unsafe.Sizeof(timerSlot{}), 32},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}
