package slurm

import (
	"fmt"
	"strings"
)

// CheckOptions refuses a --partition or --time that would break the #SBATCH lines (a
// space or a quote) and a --time that is not one of TimeForms (CheckTime); either may be
// empty (the cluster's default).
func CheckOptions(partition, timeLimit string) error {
	for _, f := range []struct{ flag, value string }{{"--partition", partition}, {"--time", timeLimit}} {
		if strings.ContainsFunc(f.value, IsSpaceOrQuote) {
			return fmt.Errorf("%s %q: no spaces or quotes allowed", f.flag, f.value)
		}
	}
	if timeLimit == "" {
		return nil
	}
	return CheckTime(timeLimit)
}
