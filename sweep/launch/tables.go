package launch

import (
	"math"
	"reflect"
	"slices"
	"strconv"

	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/specfile"
)

// RecordTableSchemas returns the record tables with their row types, in results-directory
// order (resultsdir.RecordTables; docs/schema.md's generated section reads them).
func RecordTableSchemas() []resultsdir.Schema {
	out := make([]resultsdir.Schema, len(resultsdir.RecordTables))
	for i, t := range resultsdir.RecordTables {
		out[i] = t.Schema
	}
	return out
}

// RecordTables returns the names of the record tables, in results-directory order.
func RecordTables() []string { return slices.Clone(resultsdir.Tables) }

// jobsTable builds the row type of the jobs table of a plan:
//
//	job_id string, status string (ok|failed|timeout|invalid), error string,
//	replicate int64, seed int64,
//	one column per axis, named resultsdir.ColumnOf(path), typed as Typed says
//	(bytes int64, rates float64 bit/s, times float64 seconds, vectors as bracket text),
//	the summary metrics of stats.Summary, nullable: null unless status is ok, and null
//	where the summary holds NaN (fct_p99_usec_lossless etc. of a job without that kind
//	of traffic), so DuckDB reads NULL and pandas NaN.
type jobsTable struct {
	t       reflect.Type
	naxes   int
	metrics int // index of the first metric field
}

func newJobsTable(axes []*specfile.Axis) *jobsTable {
	str, i64 := reflect.TypeFor[string](), reflect.TypeFor[int64]()
	fields := []reflect.StructField{
		{Type: str, Tag: `parquet:"job_id"`},
		{Type: str, Tag: `parquet:"status"`},
		{Type: str, Tag: `parquet:"error"`},
		{Type: i64, Tag: `parquet:"replicate"`},
		{Type: i64, Tag: `parquet:"seed"`},
	}
	for _, a := range axes {
		fields = append(fields, reflect.StructField{Type: a.Attr.Type.Column(), Tag: reflect.StructTag(`parquet:"` + a.Column + `"`)})
	}
	jt := &jobsTable{naxes: len(axes), metrics: len(fields)}
	st := reflect.TypeFor[stats.Summary]()
	for i := 0; i < st.NumField(); i++ {
		f := st.Field(i)
		fields = append(fields, reflect.StructField{Type: reflect.PointerTo(f.Type), Tag: f.Tag})
	}
	for i := range fields {
		fields[i].Name = "F" + strconv.Itoa(i)
	}
	jt.t = reflect.StructOf(fields)
	return jt
}

func (jt *jobsTable) table() resultsdir.Schema {
	return resultsdir.DynamicSchema(resultsdir.JobsTable, jt.t)
}

// row returns a one-row slice of the jobs table for job j.
func (jt *jobsTable) row(j *sweep.Job, status, errText string, sum *stats.Summary) any {
	s := reflect.MakeSlice(reflect.SliceOf(jt.t), 1, 1)
	v := s.Index(0)
	v.Field(0).SetString(j.ID)
	v.Field(1).SetString(status)
	v.Field(2).SetString(errText)
	v.Field(3).SetInt(int64(j.Replicate))
	v.Field(4).SetInt(int64(j.Seed))
	for i, val := range j.Values {
		f := v.Field(5 + i)
		switch x := val.Typed.(type) {
		case int64:
			f.SetInt(x)
		case float64:
			f.SetFloat(x)
		case bool:
			f.SetBool(x)
		case string:
			f.SetString(x)
		}
	}
	if sum != nil {
		sv := reflect.ValueOf(sum).Elem()
		for i := 0; i < sv.NumField(); i++ {
			if f := sv.Field(i); f.Kind() == reflect.Float64 && math.IsNaN(f.Float()) {
				continue // null
			}
			p := reflect.New(sv.Field(i).Type())
			p.Elem().Set(sv.Field(i))
			v.Field(jt.metrics + i).Set(p)
		}
	}
	return s.Interface()
}
