package resultsdir

import (
	"github.com/rocesweep/rocesweep/model/stats"
)

// RecordTable is a record table of a results directory with its row type and the rows
// of a batch it holds.
type RecordTable struct {
	Schema
	Rows func(b stats.Batch) any
}

// RecordTables are the record tables (design.md "Results directory", records.md) in the
// order they are written for each job. The jobs table comes after them: a job's row in
// jobs means its records were written before it.
var RecordTables = []RecordTable{
	{SchemaOf[stats.NdStats]("nd_stats"), func(b stats.Batch) any { return b.NdStats }},
	{SchemaOf[stats.EcnPfcStats]("ecn_pfc_stats"), func(b stats.Batch) any { return b.EcnPfcStats }},
	{SchemaOf[stats.RoceTransportStats]("roce_transport_stats"), func(b stats.Batch) any { return b.RoceTransportStats }},
	{SchemaOf[stats.BufferStats]("buffer_stats"), func(b stats.Batch) any { return b.BufferStats }},
	{SchemaOf[stats.PortBufferStats]("port_buffer_stats"), func(b stats.Batch) any { return b.PortBufferStats }},
	{SchemaOf[stats.NetBuffStats]("net_buff_stats"), func(b stats.Batch) any { return b.NetBuffStats }},
	{SchemaOf[stats.LbStats]("lb_stats"), func(b stats.Batch) any { return b.LbStats }},
	{SchemaOf[stats.TierHop]("tier_hop"), func(b stats.Batch) any { return b.TierHop }},
	{SchemaOf[stats.Message]("messages"), func(b stats.Batch) any { return b.Messages }},
	{SchemaOf[stats.Class]("classes"), func(b stats.Batch) any { return b.Classes }},
	{SchemaOf[stats.TopologyLink]("topology"), func(b stats.Batch) any { return b.Topology }},
	{SchemaOf[stats.Collective]("collectives"), func(b stats.Batch) any { return b.Collectives }},
}

// JobsTable is the name of the jobs table (one row per job; sweep builds its row type).
const JobsTable = "jobs"

// Tables lists the names of RecordTables, in order.
var Tables = func() []string {
	out := make([]string, len(RecordTables))
	for i, t := range RecordTables {
		out[i] = t.Name
	}
	return out
}()

// isTable reports whether name is a table folder rocesweep writes.
func isTable(name string) bool {
	if name == JobsTable {
		return true
	}
	for _, t := range Tables {
		if t == name {
			return true
		}
	}
	return false
}
