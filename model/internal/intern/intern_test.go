package intern

import "testing"

func TestValue(t *testing.T) {
	var held []*[2]int
	a, b, c := &[2]int{1, 2}, &[2]int{1, 2}, &[2]int{3, 4}
	if got := Value(&held, a); got != a {
		t.Fatalf("first value: got %p, want a %p", got, a)
	}
	if got := Value(&held, b); got != a {
		t.Fatalf("equal value: got %p, want the held a %p", got, a)
	}
	if got := Value(&held, c); got != c {
		t.Fatalf("new value: got %p, want c %p", got, c)
	}
	if len(held) != 2 {
		t.Fatalf("held %d values, want 2", len(held))
	}
}
