package slurm

import (
	"math"
	"testing"

	"github.com/rocesweep/rocesweep/model/fabric"
)

// humanBytes is a copy of fabric.HumanBytes (see its comment): the sbatch script's --mem
// comment must print sizes exactly as sweep's estimates do. Only this test links fabric;
// the package itself does not (layering_test.go checks that).
func TestHumanBytesMatchesFabric(t *testing.T) {
	vals := []int64{0, 1, 999, 1000, 1001, 1023, 1024, 99_949, 99_950, 999_499, 999_500, 1 << 20,
		97_100_000, 268_435_456, 2_400_000_000, 5e12, 3e15, 999_500_000_000_000_000, math.MaxInt64, -1, -5000}
	for b := int64(1); b > 0 && b < math.MaxInt64/7; b = b*7 + 3 {
		vals = append(vals, b, b-1, b+1)
	}
	for _, b := range vals {
		if got, want := humanBytes(b), fabric.HumanBytes(b); got != want {
			t.Errorf("humanBytes(%d) = %q, fabric.HumanBytes = %q", b, got, want)
		}
	}
}
