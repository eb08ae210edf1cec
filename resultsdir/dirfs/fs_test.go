package dirfs

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A writer's temp file left by its killed predecessor is replaced, not piled up or
// refused, and another writer's temp file (a shard still writing) is left alone.
func TestWriteFileAtomicOwnTemp(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "manifest.json")
	mine, theirs := AtomicTemp(name, "1of3"), AtomicTemp(name, "2of3")
	if filepath.Base(mine) != ".manifest.json.1of3.tmp" || filepath.Base(AtomicTemp(name, "")) != ".manifest.json.tmp" {
		t.Fatalf("temp names %s, %s", mine, AtomicTemp(name, ""))
	}
	os.WriteFile(mine, []byte("half"), 0o644)
	os.WriteFile(theirs, []byte("half"), 0o644)
	if err := WriteFileAtomic(nil, name, "1of3", []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(name); string(data) != "{}\n" {
		t.Errorf("manifest.json holds %q", data)
	}
	if got := names(t, dir); !slices.Equal(got, []string{".manifest.json.2of3.tmp", "manifest.json"}) {
		t.Errorf("directory holds %v", got)
	}
	RemoveAtomicTemp(nil, name, "2of3")
	RemoveAtomicTemp(nil, name, "3of3") // nothing to remove: not an error
	if got := names(t, dir); !slices.Equal(got, []string{"manifest.json"}) {
		t.Errorf("directory holds %v", got)
	}
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}
