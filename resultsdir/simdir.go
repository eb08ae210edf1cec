package resultsdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
)

// SimTarget says where `sim` of process pid writes: always a hidden sibling of DIR, ".NAME.sim-PID", that
// ReplaceDir puts in DIR's place once complete, so an interrupted or failed sim leaves
// DIR as it was. DIR may be new, empty, or hold an earlier sim's results and nothing else
// (the tweak-and-rerun loop into results/<name>); anything else in it is refused: a
// sweep's results, and files sim did not write, which replacing DIR would delete. Hidden
// siblings left by a sim that was killed (its process is gone) are removed first.
func SimTarget(dir string, pid int) (runDir string, err error) {
	removeStaleSimDirs(dir)
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("-o %s: %w", dir, err)
	}
	tmp := SimTemp(dir, pid)
	if len(entries) == 0 {
		return tmp, nil
	}
	m, err := ReadManifest(dir)
	if err != nil {
		return "", fmt.Errorf("-o %s is not empty and holds no rocesweep results; sim writes a new or empty directory, or replaces an earlier sim's results: use another -o", dir)
	}
	if !m.IsSim() {
		return "", fmt.Errorf("-o %s holds the results of a sweep (%s, %d jobs); sim never overwrites them: use another -o", dir, m.Name, m.PlanSize)
	}
	if foreign := Foreign(dir, entries); len(foreign) > 0 {
		return "", fmt.Errorf("-o %s holds files sim did not write (%s); a re-run replaces the whole directory: move them, or use another -o", dir, strings.Join(foreign, ", "))
	}
	return tmp, nil
}

// SimTemp is the hidden sibling a sim of process pid writes DIR's results into.
func SimTemp(dir string, pid int) string {
	return filepath.Join(filepath.Dir(dir), fmt.Sprintf(".%s.sim-%d", filepath.Base(dir), pid))
}

// removeStaleSimDirs removes the hidden siblings (".NAME.sim-PID", ".NAME.sim-PID.old")
// that a sim of DIR killed with SIGKILL left behind: those whose process no longer exists.
func removeStaleSimDirs(dir string) {
	prefix := "." + filepath.Base(dir) + ".sim-"
	entries, _ := os.ReadDir(filepath.Dir(dir))
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.IsDir() {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSuffix(rest, ".old"))
		if err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		os.RemoveAll(filepath.Join(filepath.Dir(dir), e.Name()))
	}
}

// processAlive reports whether process pid exists (signal 0 delivers nothing).
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

// ReplaceDir puts the complete directory tmp in the place of dir: a new dir is tmp
// renamed; an existing one moves aside, tmp takes its name, the old one is removed.
func ReplaceDir(tmp, dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.Rename(tmp, dir); err != nil {
			return fmt.Errorf("sim: writing %s: %w", dir, err)
		}
		return (dirfs.OS{}).SyncDir(filepath.Dir(dir))
	}
	old := tmp + ".old"
	if err := os.Rename(dir, old); err != nil {
		return fmt.Errorf("sim: replacing %s: %w", dir, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.Rename(old, dir)
		return fmt.Errorf("sim: replacing %s: %w", dir, err)
	}
	if err := (dirfs.OS{}).SyncDir(filepath.Dir(dir)); err != nil {
		return fmt.Errorf("sim: replacing %s: %w", dir, err)
	}
	return os.RemoveAll(old)
}
