package launch

import (
	"fmt"

	"github.com/rocesweep/rocesweep/model/config"
)

// ParseMaxDisk reads --max-disk-per-job: a size, 0 (no bound), or "" for the default:
// the free space of the file system dir is on (or will be, for a new dir) less a fifth,
// over workers; 0 when that is unknown (not Linux).
func ParseMaxDisk(s, dir string, workers int) (int64, error) {
	switch s {
	case "":
		free := freeDisk(dir)
		if free <= 0 {
			return 0, nil
		}
		return max((free-free/5)/int64(max(workers, 1)), 16<<20), nil
	case "0":
		return 0, nil
	}
	b, err := config.ParseBytes(s)
	if err != nil {
		return 0, fmt.Errorf("--max-disk-per-job %q: %w", s, err)
	}
	if b < 1<<20 {
		return 0, fmt.Errorf("--max-disk-per-job %s: want 0 (no limit) or at least 1 MiB", s)
	}
	return int64(b), nil
}
