package resultsdir

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
)

// The names of a results directory (design.md "Results directory"), besides the
// journals (dirfs.JournalName) and the table folders (Tables).
const (
	ManifestFile = "manifest.json"
	ReportFile   = "report.html" // what `report` writes
	CSVDir       = "csv"         // what `export` writes
	SlurmDir     = "slurm"       // what `rocesweep slurm` writes: the array script and logs
)

// ColumnOf is the jobs column of a swept attribute: its short canonical name with `.` →
// `_` (switch_LossyAlpha), whichever alias the spec used (switch.LossyAlpha,
// switch.SharedBufferManager.LossyAlpha). Attributes whose short names collide keep their
// full paths (config.ShortName). PathOf is its inverse. The one exception is the job
// key seed, an axis whose every value is a seed base (results.md §4): its column is
// seed_base (SeedBaseColumn), since the jobs table's seed column holds each job's
// derived seed.
func ColumnOf(path string) string {
	short := config.ShortName(path)
	if short == "seed" {
		return SeedBaseColumn
	}
	return strings.ReplaceAll(short, ".", "_")
}

// SeedBaseColumn is the jobs column of a sweep over seed: the seed base of the job's
// point, from which its seed (the seed column) is derived with the replicate.
const SeedBaseColumn = "seed_base"

// ShardTag is shard k of n in file names: "2of3"; "1of1" for the whole plan.
func ShardTag(k, n int) string {
	if n <= 1 {
		return "1of1"
	}
	return fmt.Sprintf("%dof%d", k, n)
}

// InShard reports whether the job at plan index i is of shard k/n: i mod n = k-1.
// Round-robin keeps every shard's mix of axes (and so its run time) alike; shards
// 1/n..n/n are disjoint and together are the plan.
func InShard(i, k, n int) bool { return n <= 1 || i%n == k-1 }

// ShardSize is the number of jobs of shard k/n in a plan of size jobs: the indices i in
// [0, jobs) that InShard accepts.
func ShardSize(jobs, k, n int) int {
	if n <= 1 {
		return jobs
	}
	if jobs < k {
		return 0
	}
	return (jobs-k)/n + 1
}

// HasResults reports whether entries (a directory's listing) hold rocesweep results: a
// directory is rocesweep's only if its manifest says so. A journal.jsonl without a
// manifest is a user's file (run writes the manifest, under the directory lock, before
// any journal).
func HasResults(entries []fs.DirEntry) bool {
	for _, e := range entries {
		if e.Name() == ManifestFile && !e.IsDir() {
			return true
		}
	}
	return false
}

// Foreign lists the entries of dir (its listing, entries) that no rocesweep command
// writes, sorted: anything but the manifest, journals (when there is a manifest),
// hidden files (locks, temp and spill files), slurm/, what `report` and `export` derive
// from the results (report.html, csv/), and table folders of part files (names as the
// sink gives them: journal.ParsePartName) and hidden files (a table folder's other files
// are listed as folder/name).
func Foreign(dir string, entries []fs.DirEntry) []string {
	var out []string
	ours := HasResults(entries)
	for _, e := range entries {
		name := e.Name()
		if _, _, ok := dirfs.ParseJournalName(name); ok && ours || name == ManifestFile || strings.HasPrefix(name, ".") ||
			name == ReportFile || (name == CSVDir || name == SlurmDir) && e.IsDir() {
			continue
		}
		if e.IsDir() && isTable(name) {
			files, _ := os.ReadDir(filepath.Join(dir, name))
			for _, f := range files {
				if _, _, _, part := journal.ParsePartName(f.Name()); !f.IsDir() && (part || strings.HasPrefix(f.Name(), ".")) {
					continue
				}
				out = append(out, filepath.Join(name, f.Name()))
			}
			continue
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
