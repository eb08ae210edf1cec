package export_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rocesweep/rocesweep/internal/resultstest"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/export"
)

// copyTree copies the regular files and folders of src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// FuzzDamagedParts: whatever happens to a committed part's bytes (the fuzzer writes
// edit over them at offset, or cuts the file there), every reader of the directory reads
// it whole and unchanged or names it as a damaged part: ReadTable, a selection's
// PartCache, export, and status with --verify; none panics, and none decodes a byte its
// journal's checksum does not vouch for (issue 38: one flipped bit in a jobs part's
// footer made every reader panic inside parquet-go; a decoder given damaged lengths can
// also ask for terabytes).
func FuzzDamagedParts(f *testing.F) {
	base := f.TempDir()
	tmpl := map[bool]string{}
	for _, arrow := range []bool{false, true} {
		format := resultsdir.Parquet
		if arrow {
			format = resultsdir.Arrow
		}
		dir := filepath.Join(base, string(format))
		if err := resultstest.WriteFormat(dir, resultstest.Grid([]float64{0.5, 1}, []float64{200e3}, 2, true), format); err != nil {
			f.Fatal(err)
		}
		tmpl[arrow] = dir
	}
	for _, arrow := range []bool{false, true} {
		for _, table := range []bool{false, true} {
			f.Add(arrow, table, uint32(0), []byte{}, false)               // unchanged
			f.Add(arrow, table, uint32(0xffffffff), []byte{0x01}, false)  // a bit of the last byte
			f.Add(arrow, table, uint32(0xfffffff0), []byte{0x80}, false)  // a bit of the footer
			f.Add(arrow, table, uint32(100), []byte("PAR1ARROW1"), false) // bytes written over
			f.Add(arrow, table, uint32(60), []byte{}, true)               // cut
		}
	}
	f.Fuzz(func(t *testing.T, arrow, ndStats bool, offset uint32, edit []byte, cut bool) {
		dir := filepath.Join(t.TempDir(), "res")
		copyTree(t, tmpl[arrow], dir)
		table := "jobs"
		if ndStats {
			table = "nd_stats"
		}
		parts, err := resultsdir.Parts(dir, table)
		if err != nil {
			t.Fatal(err)
		}
		part := parts[0]
		orig, err := os.ReadFile(part)
		if err != nil {
			t.Fatal(err)
		}
		data := append([]byte(nil), orig...)
		at := int(offset % uint32(len(data)))
		if cut {
			data = data[:at]
		}
		for i, b := range edit {
			if at+i < len(data) {
				data[at+i] ^= b
			}
		}
		if err := os.WriteFile(part, data, 0o644); err != nil {
			t.Fatal(err)
		}
		same := bytes.Equal(data, orig)
		check := func(what string, err error) {
			t.Helper()
			if same {
				if err != nil {
					t.Fatalf("%s of an unchanged part: %v", what, err)
				}
				return
			}
			var de *resultsdir.DamagedPartError
			if !errors.As(err, &de) || de.Path != part {
				t.Fatalf("%s of %s with %d bytes changed (cut %v): %v, want the part named as damaged", what, part, len(edit), cut, err)
			}
		}
		if len(data) != len(orig) {
			// Another size: the commit is left out whole, its jobs named as missing.
			c, err := resultsdir.ReadCommitted(dir)
			if err != nil || len(c.Damaged) == 0 {
				t.Fatalf("a part cut to %d of %d bytes: ReadCommitted: %v, %+v", len(data), len(orig), err, c)
			}
			for name, p := range c.Parts {
				if p.Commit == c.Damaged[0].Commit {
					t.Fatalf("a part of commit %d cut: %s of the same commit is still read", p.Commit, name)
				}
			}
			if _, err := resultsdir.ReadTable(dir, table, nil); err != nil && !errors.Is(err, resultsdir.ErrNoParts) {
				t.Fatalf("a part cut: ReadTable: %v", err)
			}
			return
		}
		_, err = resultsdir.ReadTable(dir, table, nil)
		check("ReadTable", err)
		var cache resultsdir.PartCache
		_, err = cache.ReadTable(dir, table)
		check("PartCache.ReadTable", err)
		_, _, err = export.CSVTo(dir, filepath.Join(t.TempDir(), "csv"), table)
		check("export", err)
		st, err := resultsdir.ReadStatus(dir, time.Now(), resultsdir.StatusOptions{Verify: true})
		if err != nil {
			t.Fatal(err)
		}
		if damaged := len(st.Damaged) > 0; damaged == same {
			t.Fatalf("status --verify: damaged %+v, the part changed: %v", st.Damaged, !same)
		}
	})
}
