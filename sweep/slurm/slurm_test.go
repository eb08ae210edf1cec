package slurm

import (
	"strings"
	"testing"
)

func TestCheckTime(t *testing.T) {
	for _, s := range []string{"0", "30", "90", "30:00", "4:00:00", "100:00:00", "1-0", "2-12", "1-12:30", "1-00:00:00", "UNLIMITED", "infinite"} {
		if err := CheckTime(s); err != nil {
			t.Errorf("%q: %v, want accepted", s, err)
		}
	}
	for _, s := range []string{"", "30min", "4h", "1:2:3:4", "1-2-3", "-1", "+5", "1:60", "1:00:75", "1-24", "1-2:60", "x-1", "1-", ":30", "1.5"} {
		err := CheckTime(s)
		if err == nil || !strings.Contains(err.Error(), `--time "`+s+`"`) || !strings.Contains(err.Error(), TimeForms) {
			t.Errorf("%q: %v, want refused naming the flag, the value and the forms", s, err)
		}
	}
}

func TestMem(t *testing.T) {
	for _, tc := range []struct {
		job      int64
		parallel int
		want     int64
	}{
		{0, 1, 256},
		{100 << 20, 0, 356},          // no --cpus-per-task: one job at a time
		{100 << 20, 4, 656},          // 4 x 100 MiB + 256 MiB
		{100<<20 + 1, 1, 357},        // rounded up to a whole MiB
		{3 << 30, 16, 16*3072 + 256}, // 16 jobs of 3 GiB
	} {
		if got := Mem(tc.job, tc.parallel); got != tc.want {
			t.Errorf("Mem(%d, %d) = %d MiB, want %d", tc.job, tc.parallel, got, tc.want)
		}
	}
}
