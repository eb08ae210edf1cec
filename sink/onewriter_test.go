package sink

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A shard has one writer: a second Open of the same shard is refused, naming the
// holder, before it touches anything; other shards open beside it; Close releases it.
func TestOneWriterPerShard(t *testing.T) {
	dir := t.TempDir()
	first, err := Open(Options{Dir: dir, Shard: "1of3", CommitInterval: -1}, testTables())
	if err != nil {
		t.Fatal(err)
	}
	// a temp file of the running writer: a second writer's recovery would remove it
	tmp := filepath.Join(dir, "nd_stats", ".part-1of3-000001.parquet.tmp")
	os.MkdirAll(filepath.Dir(tmp), 0o755)
	os.WriteFile(tmp, []byte("being written"), 0o644)

	_, err = Open(Options{Dir: dir, Shard: "1of3", Resume: true, CommitInterval: -1}, testTables())
	want := fmt.Sprintf("shard 1of3 is being written by another rocesweep (pid %d on ", os.Getpid())
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("second writer of shard 1of3: %v, want an error containing %q", err, want)
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Errorf("the refused writer touched the running one's files: %v", err)
	}
	other, err := Open(Options{Dir: dir, Shard: "2of3", CommitInterval: -1}, testTables())
	if err != nil {
		t.Fatalf("shard 2of3 beside 1of3: %v", err)
	}
	other.Close()
	os.Remove(tmp)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(Options{Dir: dir, Shard: "1of3", Resume: true, CommitInterval: -1}, testTables())
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	again.Close()
}
