package resultsdir

import (
	"errors"
	"fmt"
	"path/filepath"
)

// DamagedPartError is a part file that does not read as what it claims to be (Parquet or
// Arrow IPC): a flipped bit in its footer or pages, a truncation, bytes that were never
// a part. Every reader of parts returns it naming the file, and never panics on such
// bytes (GuardPart).
type DamagedPartError struct {
	Path string
	Err  error
}

func (e *DamagedPartError) Error() string {
	dir := filepath.Dir(filepath.Dir(e.Path)) // DIR of DIR/TABLE/part-...
	return fmt.Sprintf("%s: damaged part: %v ('rocesweep status %s --verify' lists every damaged part; run the sweep again with --resume: it withdraws the part's commit and runs its jobs again)", e.Path, e.Err, dir)
}

func (e *DamagedPartError) Unwrap() error { return e.Err }

// Damaged returns err as a *DamagedPartError of path (err itself when it is one already;
// nil for nil): what a Parquet or Arrow library said of a part's bytes.
func Damaged(path string, err error) error {
	var de *DamagedPartError
	if err == nil || errors.As(err, &de) {
		return err
	}
	return &DamagedPartError{Path: path, Err: err}
}

// GuardPart calls read, which reads the part file path through a Parquet or Arrow
// library, and turns a panic inside it into a *DamagedPartError naming path: those
// libraries index their buffers by the lengths and offsets a file records, and a
// damaged footer or page header makes them slice out of range (one flipped bit in a
// jobs part's footer would make status, report, export, compare and ls panic).
// Errors read returns pass through as they are.
func GuardPart(path string, read func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &DamagedPartError{Path: path, Err: fmt.Errorf("its bytes do not decode (%v)", v)}
		}
	}()
	return read()
}
