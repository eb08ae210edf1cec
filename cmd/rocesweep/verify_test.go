package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model"
	"github.com/rocesweep/rocesweep/resultsdir"
)

// A deleted jobs part file is found by status (which used to say
// "complete") and repaired by --resume (which used to say "already done"): the jobs of
// its commit run again and their rows in the other tables are not left twice.
func TestDeletedPartDetectedAndRepaired(t *testing.T) {
	t.Parallel()
	spec := writeSpec(t, crashSpec)
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, stderr, _ := runMain(t, "run", spec, "-o", dir, "-j", "2"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	planned := statusJSON(t, dir).PlanSize
	files, _ := resultsdir.Files(dir, "jobs")
	if len(files) == 0 {
		t.Fatal("no jobs files")
	}
	if err := os.Remove(files[0]); err != nil {
		t.Fatal(err)
	}
	st := statusJSON(t, dir)
	if st.Complete || len(st.Damaged) != 1 || st.Damaged[0].Problem != "missing" || st.Total.Missing == 0 ||
		st.Total.Missing != len(st.Damaged[0].Jobs) {
		t.Fatalf("status after deleting %s: %+v", files[0], st)
	}
	if text := statusText(t, dir); !strings.Contains(text, "damaged: jobs/"+filepath.Base(files[0])+": missing") {
		t.Errorf("status text:\n%s", text)
	}
	code, _, stderr, jobs := runMain(t, "run", spec, "-o", dir, "--resume")
	if code != 0 || int(jobs) != st.Total.Missing || !strings.Contains(stderr, "missing; its commit's") {
		t.Fatalf("resume: exit %d, %d jobs run (want %d)\n%s", code, jobs, st.Total.Missing, stderr)
	}
	st = statusJSON(t, dir)
	if !st.Complete || st.Total.OK != planned || len(st.Damaged) != 0 {
		t.Errorf("status after resume: %+v", st)
	}
	type idRow struct {
		ID string `parquet:"job_id"`
	}
	for _, table := range []string{"jobs", "nd_stats"} {
		rows, err := resultsdir.ReadRows[idRow](dir, table)
		if err != nil {
			t.Fatal(err)
		}
		perJob := map[string]int{}
		for _, r := range rows {
			perJob[r.ID]++
		}
		if len(perJob) != planned {
			t.Errorf("%s: rows of %d jobs, want %d", table, len(perJob), planned)
		}
		if table == "jobs" {
			for id, n := range perJob {
				if n != 1 {
					t.Errorf("jobs: %d rows of %s", n, id)
				}
			}
		}
	}
	// A flipped byte keeps the size: only status --verify reads the files whole.
	files, _ = resultsdir.Files(dir, "nd_stats")
	b, _ := os.ReadFile(files[0])
	b[len(b)/2] ^= 1
	os.WriteFile(files[0], b, 0o644)
	if st := statusJSON(t, dir); !st.Complete {
		t.Errorf("status without --verify read the files: %+v", st.Damaged)
	}
	code, out, _, _ := runMain(t, "status", dir, "--verify")
	if code != 0 || !strings.Contains(out, "checksum") || strings.Contains(out, "complete") {
		t.Errorf("status --verify: exit %d\n%s", code, out)
	}
}

// A journal line with status "xk" or an extra line never makes status
// report more jobs ok than planned.
func TestStatusNeverMoreThanPlanned(t *testing.T) {
	t.Parallel()
	spec := writeSpec(t, crashSpec)
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, stderr, _ := runMain(t, "run", spec, "-o", dir); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	journal := filepath.Join(dir, "journal.jsonl")
	data, _ := os.ReadFile(journal)
	// A whole foreign commit of two jobs, with good checksums, and a line of garbage.
	data = append(data, []byte(sealed(`{"job_id":"ffff","status":"ok","commit":900}`)+sealed(`{"job_id":"eeee","status":"ok","commit":900}`)+
		sealed(`{"commit":900,"jobs":2,"files":[]}`)+`{"job_id":"dddd","status":"xk","commit":901}`+"\n")...)
	os.WriteFile(journal, data, 0o644)
	st := statusJSON(t, dir)
	if st.Total.OK > st.PlanSize || st.Total.OK != st.PlanSize || st.Total.Missing != 0 {
		t.Errorf("total %+v for a plan of %d", st.Total, st.PlanSize)
	}
	if !strings.Contains(strings.Join(st.Notes, "\n"), "2 jobs more than the plan") {
		t.Errorf("notes: %q", st.Notes)
	}
	// --verify names each foreign job and the garbage line.
	_, out, _, _ := runMain(t, "status", dir, "--verify")
	for _, want := range []string{"job ffff (commit 900) is not a job of the plan", "job eeee (commit 900) is not a job of the plan", `(job dddd): no checksum`} {
		if !strings.Contains(out, want) {
			t.Errorf("status --verify lacks %q:\n%s", want, out)
		}
	}
}

// Status names both versions when the results are of another model.
func TestStatusNamesOtherModelVersion(t *testing.T) {
	t.Parallel()
	spec := writeSpec(t, crashSpec)
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, stderr, _ := runMain(t, "run", spec, "-o", dir); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	m := filepath.Join(dir, "manifest.json")
	data, _ := os.ReadFile(m)
	os.WriteFile(m, []byte(strings.Replace(string(data), model.Version, "rocesweep-model/0.0.9", 1)), 0o644)
	want := "the results are of model rocesweep-model/0.0.9; this binary runs " + model.Version
	if text := statusText(t, dir); !strings.Contains(text, want) {
		t.Errorf("status:\n%s", text)
	}
}
