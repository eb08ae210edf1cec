package resultsdir

// Format is the file format of a results directory's tables (run --format).
type Format string

const (
	Parquet Format = "parquet" // part-SHARD-NNNNNN.parquet
	Arrow   Format = "arrow"   // part-SHARD-NNNNNN.arrow, the Arrow IPC file format
)
