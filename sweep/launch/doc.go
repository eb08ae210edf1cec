// Package launch runs the jobs of a plan (sweep.Plan) and writes their rows through the
// sink: the runner with its journal, resume, shards and signals (runner.go, record.go),
// the jobs in worker processes (worker.go, proc_*.go) or as goroutines, the spill files
// that bound a job's memory (spill.go, rowcodec.go), the memory and disk budgets
// (maxmem.go, maxdisk.go, machine.go), progress (progress.go), the results directory's
// manifest and guards (manifest.go, dirguard.go), sim's one job (sim.go) and the real
// job (simulate.go). It is the package with goroutines and processes; each job builds
// its own engine.
package launch
