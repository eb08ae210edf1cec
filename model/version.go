// Package model names the simulation model as a whole: its version. The model itself is
// in the packages under model/ (model/fabric runs a job); this package holds only what
// every layer may know of it without linking it.
package model

// Version names the behaviour of the simulation model. A change of version means that
// some job's outputs (its rows or its summary) may differ from those of the previous
// version for the same resolved config and replicate: bump it with any change under
// model/ that changes any job's outputs, and only then.
//
// It is part of every job id and recorded in the manifest, so results of different
// model versions never mix: run --resume refuses a directory of another version, status
// notes it and compare warns of it.
const Version = "rocesweep-model/0.9.0"
