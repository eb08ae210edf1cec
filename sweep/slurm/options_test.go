package slurm

import "testing"

func TestCheckOptions(t *testing.T) {
	for _, tc := range []struct{ partition, time, want string }{
		{"", "", ""},
		{"gpu", "4:00:00", ""},
		{"my gpu", "", `--partition "my gpu": no spaces or quotes allowed`},
		{"", `4:00"`, `--time "4:00\"": no spaces or quotes allowed`},
	} {
		got := ""
		if err := CheckOptions(tc.partition, tc.time); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("CheckOptions(%q, %q) = %q, want %q", tc.partition, tc.time, got, tc.want)
		}
	}
	if CheckOptions("", "30min") == nil {
		t.Errorf("--time 30min: no error")
	}
}
