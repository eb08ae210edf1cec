package constraint

import (
	"testing"

	"github.com/rocesweep/rocesweep/model/sim"
)

// picosPerSecond restates sim.Second (see its comment); only this test imports sim.
func TestPicosPerSecondIsSimSecond(t *testing.T) {
	if picosPerSecond != float64(sim.Second) {
		t.Fatalf("picosPerSecond = %g, sim.Second = %d", float64(picosPerSecond), sim.Second)
	}
	if got, err := parseLiteral("2us"); err != nil || got != 2e-6 {
		t.Fatalf(`parseLiteral("2us") = %v, %v; want 2e-06`, got, err)
	}
}
