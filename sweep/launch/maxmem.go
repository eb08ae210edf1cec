package launch

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/rocesweep/rocesweep/model/config"
)

// ParseMaxMem reads --max-mem-per-job: a size with units ("6GB", "512MiB"), "0" for no
// limit, or "" for the default: the machine's memory (or the cgroup's limit, if lower),
// less a margin of a tenth (at least 512 MiB) for this process and the system, over -j.
func ParseMaxMem(s string, workers int) (int64, error) {
	if s == "" {
		total := MachineMemory()
		if total <= 0 {
			return 0, nil
		}
		margin := max(total/10, 512<<20)
		return max((total-margin)/int64(workers), 64<<20), nil
	}
	if s == "0" {
		return 0, nil
	}
	b, err := config.ParseBytes(s)
	if err != nil {
		return 0, fmt.Errorf("--max-mem-per-job %q: %w", s, err)
	}
	if b < 16<<20 {
		return 0, fmt.Errorf("--max-mem-per-job %s: want 0 (no limit) or at least 16 MiB: a worker process alone takes ~10 MB", s)
	}
	return int64(b), nil
}

// MachineMemory is the memory this process may use: MemTotal of /proc/meminfo, or the
// cgroup v2 limit when lower; 0 when unknown (not Linux).
func MachineMemory() int64 {
	if runtime.GOOS != "linux" {
		return 0
	}
	var total int64
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				total = kb << 10
			}
		}
	}
	if data, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if lim, err := strconv.ParseInt(string(bytes.TrimSpace(data)), 10, 64); err == nil && lim > 0 && (total == 0 || lim < total) {
			total = lim
		}
	}
	return total
}

// MemBudget is the memory one job may use, with what names it in a refusal: iso's limit
// per job when it has one, else this machine's memory (MachineMemory; 0 when unknown).
func MemBudget(iso *Isolation) (int64, string) {
	if iso != nil && iso.MaxMem > 0 {
		return iso.MaxMem, "the limit per job (--max-mem-per-job)"
	}
	return MachineMemory(), "this machine's memory"
}
