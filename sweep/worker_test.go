package sweep

import (
	"bytes"
	"encoding/gob"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// A worker gets its job's configuration through gob: every field must survive, for every
// config in configs/ (mix workloads, vectors, rates, times).
func TestWorkerRequestCarriesTheWholeConfig(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "configs", "*.yaml"))
	bench, _ := filepath.Glob(filepath.Join("..", "configs", "bench", "*.yaml"))
	files = append(files, bench...)
	if len(files) < 3 {
		t.Fatalf("only %d configs found", len(files))
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ParseSpec(name, data, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p, err := Expand(s, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, j := range p.Jobs[:min(len(p.Jobs), 4)] {
			var buf bytes.Buffer
			if err := gob.NewEncoder(&buf).Encode(&workerRequest{Config: j.Config, JobID: j.ID}); err != nil {
				t.Fatal(err)
			}
			var got workerRequest
			if err := gob.NewDecoder(&buf).Decode(&got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Config, j.Config) {
				t.Errorf("%s job %s: the config changed on its way to the worker:\n%+v\n%+v", name, j.ID, got.Config, j.Config)
			}
		}
	}
}
