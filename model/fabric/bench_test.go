package fabric

import (
	"context"
	"runtime"
	"testing"
)

// htsimScenarios are the four reference jobs of docs/performance.md, the same topology and bytes as
// htsim's published runs (configs/bench/*.yaml are the same jobs as `rocesweep sim`
// specs; scripts/bench.sh times those as whole processes).
var htsimScenarios = []struct {
	name string
	sets []string
}{
	{"incast-8to1-1MiB", []string{"topology.kind", "star", "topology.hosts", "9", "workload.kind", "incast",
		"workload.senders", "8", "workload.message_size", "1MiB", "stop", "drain", "duration", "10ms"}},
	{"incast-8to1-100MiB", []string{"topology.kind", "star", "topology.hosts", "9", "workload.kind", "incast",
		"workload.senders", "8", "workload.message_size", "100MiB", "stop", "drain", "duration", "100ms"}},
	{"leaf-spine-128-permutation-1MiB", []string{"topology.kind", "leaf-spine", "topology.leaves", "8", "topology.spines", "8",
		"topology.hosts_per_leaf", "16", "topology.uplinks_per_spine", "2", "workload.kind", "permutation", "workload.message_size", "1MiB", "stop", "drain", "duration", "10ms"}},
	{"fat-tree-1024-permutation-2MB", []string{"topology.kind", "fat-tree", "topology.k", "16", "workload.kind", "permutation",
		"workload.message_size", "2MB", "stop", "drain", "duration", "20ms"}},
}

// fatTreeScaling are the fat tree permutation of 2 MB at smaller k (k = 8: 128 hosts,
// k = 12: 432 hosts), for scaling and for cache simulation (valgrind) where k = 16 is too
// slow.
var fatTreeScaling = []struct {
	name string
	sets []string
}{
	{"k=8", []string{"topology.kind", "fat-tree", "topology.k", "8", "workload.kind", "permutation",
		"workload.message_size", "2MB", "stop", "drain", "duration", "20ms"}},
	{"k=12", []string{"topology.kind", "fat-tree", "topology.k", "12", "workload.kind", "permutation",
		"workload.message_size", "2MB", "stop", "drain", "duration", "20ms"}},
	// Short jobs for cache simulation at every size: the same fabric and flows, so the
	// same hot state per event, in a fraction of the events.
	{"k=8-256KB", []string{"topology.kind", "fat-tree", "topology.k", "8", "workload.kind", "permutation",
		"workload.message_size", "256KB", "stop", "drain", "duration", "20ms"}},
	{"k=16-256KB", []string{"topology.kind", "fat-tree", "topology.k", "16", "workload.kind", "permutation",
		"workload.message_size", "256KB", "stop", "drain", "duration", "20ms"}},
	{"k=24-256KB", []string{"topology.kind", "fat-tree", "topology.k", "24", "workload.kind", "permutation",
		"workload.message_size", "256KB", "stop", "drain", "duration", "20ms"}},
	// Half the bytes: the difference from the 256KB job is the steady state alone.
	{"k=8-128KB", []string{"topology.kind", "fat-tree", "topology.k", "8", "workload.kind", "permutation",
		"workload.message_size", "128KB", "stop", "drain", "duration", "20ms"}},
	{"k=16-128KB", []string{"topology.kind", "fat-tree", "topology.k", "16", "workload.kind", "permutation",
		"workload.message_size", "128KB", "stop", "drain", "duration", "20ms"}},
	{"k=24-128KB", []string{"topology.kind", "fat-tree", "topology.k", "24", "workload.kind", "permutation",
		"workload.message_size", "128KB", "stop", "drain", "duration", "20ms"}},
}

// BenchmarkFatTree is BenchmarkScenario's fat tree job at smaller k.
func BenchmarkFatTree(b *testing.B) {
	for _, sc := range fatTreeScaling {
		b.Run(sc.name, func(b *testing.B) { benchJob(b, sc.sets) })
	}
}

// BenchmarkScenario runs each reference job from New to the end of Loop (no rows are
// built or written) and reports simulated data packets and events per wall second, and
// the heap a built fabric holds per host before its first event (devices, routes, QP
// tables: B/host). go test -run '^$' -bench Scenario -benchmem ./model/fabric; the fat
// tree takes a few seconds per iteration.
func BenchmarkScenario(b *testing.B) {
	for _, sc := range htsimScenarios {
		b.Run(sc.name, func(b *testing.B) { benchJob(b, sc.sets) })
	}
}

func benchJob(b *testing.B, sets []string) {
	cfg := job(b, sets...)
	b.ReportAllocs()
	var events, packets uint64
	var heapPerHost float64
	for i := 0; i < b.N; i++ {
		var before runtime.MemStats
		if i == 0 {
			b.StopTimer()
			runtime.GC()
			runtime.ReadMemStats(&before)
			b.StartTimer()
		}
		f, err := New(cfg, Options{JobID: "bench", Clock: fixedClock})
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			b.StopTimer()
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			heapPerHost = float64(ms.HeapAlloc-before.HeapAlloc) / float64(len(f.nics))
			b.StartTimer()
		}
		if err := f.Loop(context.Background()); err != nil {
			b.Fatal(err)
		}
		if f.completed != len(f.msgs) {
			b.Fatalf("%d of %d messages completed", f.completed, len(f.msgs))
		}
		events += f.eng.Fired()
		for _, n := range f.nics {
			packets += uint64(n.Counters().DataFramesSent)
		}
	}
	b.ReportMetric(float64(packets)/b.Elapsed().Seconds(), "pkts/s")
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(heapPerHost, "B/host")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
	b.ReportMetric(float64(packets)/float64(b.N), "pkts/op")
}
