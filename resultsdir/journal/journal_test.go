package journal

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
)

// The example line of docs/results.md §5 seals to the checksum the docs print.
func TestSealDocsExample(t *testing.T) {
	got := string(Seal([]byte(`{"job_id":"4f0c2a9e1b7d3c55","status":"ok","commit":3}`)))
	if want := `{"job_id":"4f0c2a9e1b7d3c55","status":"ok","commit":3,"crc":"d79b14e3"}`; got != want {
		t.Errorf("Seal = %s, want the example of docs/results.md %s", got, want)
	}
}

// What AppendCommit and AppendVoid write, Parse reads back: the commits that stand, their
// jobs with their statuses, their files and sums; a voided commit does not count.
func TestAppendParseRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	AppendCommit(&buf, 1, []JobLine{{"a", StatusOK}, {"b", StatusFailed}}, []string{"jobs/part-1of1-000001.parquet"}, []FileSum{{Size: 10, CRC32C: "0000000a"}})
	AppendCommit(&buf, 2, []JobLine{{"c", StatusTimeout}}, []string{"jobs/part-1of1-000002.parquet"}, []FileSum{{Size: 20}})
	AppendCommit(&buf, 3, []JobLine{{"d", StatusInvalid}}, nil, nil)
	AppendVoid(&buf, 2)
	st := Parse(buf.Bytes(), ParseOptions{Shard: "1of1", Strict: true})
	if len(st.Damaged) != 0 || len(st.Problems) != 0 || st.Valid != int64(buf.Len()) || st.Last != 3 {
		t.Fatalf("Parse: damaged %v, problems %v, valid %d of %d, last %d", st.Damaged, st.Problems, st.Valid, buf.Len(), st.Last)
	}
	if got, want := st.Done(), map[string]JobStatus{"a": StatusOK, "b": StatusFailed, "d": StatusInvalid}; !maps.Equal(got, want) {
		t.Errorf("Done = %v, want %v", got, want)
	}
	if c := st.Complete[1]; c == nil || !slices.Equal(c.Files, []string{"jobs/part-1of1-000001.parquet"}) || c.Sums[0] != (FileSum{Size: 10, CRC32C: "0000000a"}) || !slices.Equal(c.Lines, []int{1, 2}) {
		t.Errorf("commit 1 = %+v", st.Complete[1])
	}
}

// One changed character of a job line damages that line and costs its commit, not the
// commits around it; an unknown status does too.
func TestParseDamage(t *testing.T) {
	var buf bytes.Buffer
	for n := 1; n <= 3; n++ {
		AppendCommit(&buf, n, []JobLine{{ID: string(rune('a' + n)), Status: StatusOK}}, nil, nil)
	}
	lines := strings.SplitAfter(buf.String(), "\n")
	lines[2] = strings.Replace(lines[2], `"c"`, `"x"`, 1) // commit 2's job line
	st := Parse([]byte(strings.Join(lines, "")), ParseOptions{Shard: "1of1"})
	if !slices.Equal(st.Damaged, []int{3}) || st.Complete[2] != nil || st.Complete[1] == nil || st.Complete[3] == nil {
		t.Errorf("a changed job line: damaged %v, complete %v", st.Damaged, slices.Sorted(maps.Keys(st.Complete)))
	}
	bad := Seal([]byte(`{"job_id":"z","status":"done","commit":4}`))
	st = Parse(append(append(buf.Bytes(), bad...), '\n'), ParseOptions{})
	if len(st.Problems) != 1 || !strings.Contains(st.Problems[0].Problem, `unknown status "done"`) {
		t.Errorf("an unknown status: problems %v", st.Problems)
	}
}

// A JobStatus is its text in JSON, as the journal's lines have always held it.
func TestJobStatusJSON(t *testing.T) {
	data, err := json.Marshal(JobLine{ID: "j", Status: StatusTimeout})
	if err != nil || string(data) != `{"job_id":"j","status":"timeout"}` {
		t.Errorf("Marshal = %s, %v", data, err)
	}
	for _, s := range Statuses {
		if !s.Known() {
			t.Errorf("%s is not Known", s)
		}
	}
	if JobStatus("done").Known() || JobStatus("").Known() {
		t.Error(`"done" or "" is Known`)
	}
}

func TestPartNames(t *testing.T) {
	for _, tc := range []struct {
		name      string
		shard     string
		commit    int
		temp, ok  bool
		committed bool // MatchPartName's
		matched   bool // MatchPartName's ok
	}{
		{"part-2of3-000004.parquet", "2of3", 4, false, true, true, true},
		{".part-2of3-000004.arrow.tmp", "2of3", 4, true, true, false, true},
		{".part-1of1-000001.parquet", "", 0, false, false, false, true}, // debris of the sink's names
		{"part-1of1-000001.parquet.tmp", "", 0, false, false, false, true},
		{"part-1of1-9223372036854775806.parquet", "", 0, false, false, false, false},
		{"part-1of1-000000.parquet", "", 0, false, false, false, false},
		{"part-00000-my-spark-output.parquet", "", 0, false, false, false, false},
	} {
		shard, commit, temp, ok := ParsePartName(tc.name)
		if shard != tc.shard || commit != tc.commit || temp != tc.temp || ok != tc.ok {
			t.Errorf("ParsePartName(%s) = %q, %d, %v, %v", tc.name, shard, commit, temp, ok)
		}
		if _, _, committed, ok := MatchPartName(tc.name); committed != tc.committed || ok != tc.matched {
			t.Errorf("MatchPartName(%s): committed %v, ok %v; want %v, %v", tc.name, committed, ok, tc.committed, tc.matched)
		}
	}
}
