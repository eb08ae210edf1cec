package resultsdir_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/internal/resultstest"
	"github.com/rocesweep/rocesweep/resultsdir"
)

// partSeeds returns the bytes of a jobs part and an nd_stats part of a small synthetic
// directory in format f, each with its extension.
func partSeeds(t testing.TB, dir string, f resultsdir.Format) (ext string, parts [][]byte) {
	t.Helper()
	if err := resultstest.WriteFormat(dir, resultstest.Grid([]float64{0.5, 1}, []float64{200e3}, 2, true), f); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"jobs", "nd_stats"} {
		ps, err := resultsdir.Parts(dir, table)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(ps[0])
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, data)
		ext = filepath.Ext(ps[0])
	}
	return ext, parts
}

// Every bit flipped in a committed part, of either format, makes ReadTable name the part
// as damaged (its checksum, checked before any decoder sees the bytes: an Arrow IPC
// footer's lengths are not checked by its decoder, and one flip could make it allocate
// terabytes).
func TestDamagedCommittedPartIsNamed(t *testing.T) {
	for _, format := range []resultsdir.Format{resultsdir.Parquet, resultsdir.Arrow} {
		t.Run(string(format), func(t *testing.T) {
			dir := t.TempDir()
			partSeeds(t, dir, format)
			ps, err := resultsdir.Parts(dir, "jobs")
			if err != nil {
				t.Fatal(err)
			}
			orig, err := os.ReadFile(ps[0])
			if err != nil {
				t.Fatal(err)
			}
			for k := 1; k < len(orig); k += len(orig)/97 + 1 {
				data := append([]byte(nil), orig...)
				data[len(data)-k] ^= 1 << (k % 8)
				if err := os.WriteFile(ps[0], data, 0o644); err != nil {
					t.Fatal(err)
				}
				_, err := resultsdir.ReadTable(dir, "jobs", nil)
				var de *resultsdir.DamagedPartError
				if !errors.As(err, &de) || de.Path != ps[0] || !strings.Contains(err.Error(), "checksum") {
					t.Fatalf("byte %d from the end flipped: ReadTable: %v, want the part named as damaged by its checksum", k, err)
				}
			}
		})
	}
}
