package launch

import (
	"bytes"
	"encoding/gob"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/specfile"
)

// A worker gets its job's configuration through gob: every field must survive, for every
// config in configs/ (mix workloads, vectors, rates, times).
func TestWorkerRequestCarriesTheWholeConfig(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "configs", "*.yaml"))
	bench, _ := filepath.Glob(filepath.Join("..", "..", "configs", "bench", "*.yaml"))
	files = append(files, bench...)
	if len(files) < 3 {
		t.Fatalf("only %d configs found", len(files))
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		s, err := specfile.Parse(name, data, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p, err := sweep.Expand(s, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, j := range p.Jobs[:min(len(p.Jobs), 4)] {
			var buf bytes.Buffer
			if err := gob.NewEncoder(&buf).Encode(newWorkerRequest(p, j)); err != nil {
				t.Fatal(err)
			}
			var req workerRequest
			if err := gob.NewDecoder(&buf).Decode(&req); err != nil {
				t.Fatal(err)
			}
			got, err := new(specCache).config(&req)
			if err != nil {
				t.Fatalf("%s job %s: %v", name, j.ID, err)
			}
			if !reflect.DeepEqual(got, j.Config) {
				t.Errorf("%s job %s: the config changed on its way to the worker:\n%+v\n%+v", name, j.ID, got, j.Config)
			}
		}
	}
	p := smallPlan(t)
	req := newWorkerRequest(p, p.Jobs[0])
	req.Seed++
	if _, err := new(specCache).config(req); err == nil || !strings.Contains(err.Error(), "planner differs") {
		t.Errorf("a job rebuilt with another seed: %v, want the id check to refuse it", err)
	}
}

func smallPlan(t *testing.T) *sweep.Plan {
	s, err := specfile.Parse("x.yaml", []byte("name: x\nsweep: {grid: {switch.LossyAlpha: [1, 2]}}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := sweep.Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The recorder holds its rows in its embedded Batch only (resultsdir.RecordTables maps
// each Batch field to its table), so no row slice can bypass the spill.
func TestRecorderRowsAreInItsBatch(t *testing.T) {
	rt := reflect.TypeFor[stats.Recorder]()
	for i := 0; i < rt.NumField(); i++ {
		if f := rt.Field(i); f.Type.Kind() == reflect.Slice {
			t.Errorf("Recorder.%s holds rows outside its Batch", f.Name)
		}
	}
}

// Rows cross from a worker to the runner through gob (the spill and the reply), which
// flattens pointers and leaves zero values out: a pointer to 0 would come back nil, an
// optional column's 0 turned NULL in isolated runs only. So a record row holds no
// pointers, and gob must round-trip every field of a row of each table as it is.
func TestRowsSurviveGob(t *testing.T) {
	bt := reflect.TypeFor[stats.Batch]()
	for i := 0; i < bt.NumField(); i++ {
		row := bt.Field(i).Type.Elem()
		for j := 0; j < row.NumField(); j++ {
			if f := row.Field(j); f.Type.Kind() == reflect.Pointer {
				t.Errorf("%s.%s is a pointer (%v): gob cannot carry a pointer to a zero value", row.Name(), f.Name, f.Type)
			}
		}
	}
	// A row of each table with every field set to a non-zero value, and one all zero.
	var in stats.Batch
	bv := reflect.ValueOf(&in).Elem()
	for i := 0; i < bv.NumField(); i++ {
		s := bv.Field(i)
		full := reflect.New(s.Type().Elem()).Elem()
		for j := 0; j < full.NumField(); j++ {
			switch f := full.Field(j); f.Kind() {
			case reflect.String:
				f.SetString("x")
			case reflect.Bool:
				f.SetBool(true)
			case reflect.Int32, reflect.Int64:
				f.SetInt(-7)
			case reflect.Float64:
				f.SetFloat(0.5)
			}
		}
		s.Set(reflect.Append(s, full, reflect.Zero(s.Type().Elem())))
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&workerResponse{Rows: in}); err != nil {
		t.Fatal(err)
	}
	var out workerResponse
	if err := gob.NewDecoder(&buf).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out.Rows, in) {
		t.Errorf("rows changed through gob:\n in %+v\nout %+v", in, out.Rows)
	}
}
