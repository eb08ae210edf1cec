package resultsdir

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// ShardSize counts exactly the indices InShard accepts, and the shards of n split every
// plan size into disjoint parts that cover it.
func TestShardSizeCountsInShard(t *testing.T) {
	for _, jobs := range []int{0, 1, 2, 7, 12, 13} {
		for _, n := range []int{1, 2, 3, 5, 13, 20} {
			total := 0
			for k := 1; k <= n; k++ {
				count := 0
				for i := 0; i < jobs; i++ {
					if InShard(i, k, n) {
						count++
					}
				}
				if got := ShardSize(jobs, k, n); got != count {
					t.Errorf("ShardSize(%d, %d, %d) = %d, InShard accepts %d", jobs, k, n, got, count)
				}
				total += count
			}
			if total != jobs {
				t.Errorf("shards of %d hold %d of %d jobs", n, total, jobs)
			}
		}
	}
	if got := ShardTag(2, 3) + " " + ShardTag(1, 1) + " " + ShardTag(1, 0); got != "2of3 1of1 1of1" {
		t.Errorf("ShardTag: %s", got)
	}
}

func TestForeign(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   []string // paths relative to the directory; a trailing / makes a folder
		results bool
		foreign []string
	}{
		{"empty", nil, false, nil},
		{"results", []string{"manifest.json", "journal.jsonl", ".journal.jsonl.lock", "jobs/part-1of1-000001.parquet",
			"jobs/.part-1of1-000002.parquet.tmp", "report.html", "csv/jobs.csv", "slurm/array.sh"}, true, nil},
		{"shard journal only", []string{"journal-2of3.jsonl"}, false, []string{"journal-2of3.jsonl"}},
		{"a user's journal and notes", []string{"journal.jsonl", "notes.txt"}, false, []string{"journal.jsonl", "notes.txt"}},
		{"a user's part among tables", []string{"manifest.json", "jobs/part-00000-my-spark-output.parquet", "jobs/part-1of1-000001.parquet"}, true,
			[]string{"jobs/part-00000-my-spark-output.parquet"}},
		{"user files", []string{"notes.txt", "data/", "a.yaml"}, false, []string{"a.yaml", "data", "notes.txt"}},
		{"a file among tables", []string{"manifest.json", "jobs/part-1of1-000001.parquet", "jobs/mine.parquet", "x.csv"}, true,
			[]string{"jobs/mine.parquet", "x.csv"}},
		{"slurm file, not folder", []string{"slurm"}, false, []string{"slurm"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tc.files {
				p := filepath.Join(dir, f)
				if f[len(f)-1] == '/' {
					os.MkdirAll(p, 0o755)
					continue
				}
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte("x"), 0o644)
			}
			entries, _ := os.ReadDir(dir)
			if got := HasResults(entries); got != tc.results {
				t.Errorf("HasResults = %v, want %v", got, tc.results)
			}
			if got := Foreign(dir, entries); !slices.Equal(got, tc.foreign) {
				t.Errorf("Foreign = %q, want %q", got, tc.foreign)
			}
		})
	}
}
