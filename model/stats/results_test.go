package stats

import (
	"reflect"
	"slices"
	"testing"
)

// MetricNames and Values follow the Summary fields in order, one to one: the jobs table
// takes its columns from the fields (sweep), the golden file and sim --json from these.
// Field i is set to i + 1, so Values()[i] must be i + 1.
func TestMetricNamesFollowSummary(t *testing.T) {
	var s Summary
	v := reflect.ValueOf(&s).Elem()
	var tags []string
	for i := 0; i < v.NumField(); i++ {
		tags = append(tags, v.Type().Field(i).Tag.Get("parquet"))
		switch f := v.Field(i); f.Kind() {
		case reflect.Int64:
			f.SetInt(int64(i + 1))
		case reflect.Float64:
			f.SetFloat(float64(i + 1))
		default:
			t.Fatalf("field %s: %v", v.Type().Field(i).Name, f.Kind())
		}
	}
	if !slices.Equal(tags, MetricNames) {
		t.Errorf("Summary columns %v\nMetricNames     %v", tags, MetricNames)
	}
	for i, x := range s.Values() {
		if x != float64(i+1) {
			t.Errorf("Values()[%d] (%s) = %v, want field %d's %d", i, MetricNames[i], x, i, i+1)
		}
	}
	if n := len(s.Values()); n != v.NumField() {
		t.Errorf("%d values for %d fields", n, v.NumField())
	}
}
