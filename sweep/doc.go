// Package sweep is the plan of a sweep: Expand turns a parsed spec (sweep/specfile)
// into independent jobs, with constraints, sampling, replicates, stable job ids and
// per-job seeds (plan.go); shards select from it; its selection problems and a
// bisection's probes and status are built from it (problem.go, bisect.go,
// conditions.go, bisectstatus.go); and the jobs are estimated against memory and disk
// budgets (estimate.go).
//
// The packages of a sweep, in the order a sweep goes through them (docs/design.md §1):
//
//   - sweep/specfile: the spec, its overrides (--set, --grid) and its objective;
//   - sweep: the plan (this package), pure: it reads no results directory, writes
//     nothing and starts no process, so that a plan is the same wherever it is made;
//   - sweep/launch: running a plan's jobs (the runner, worker processes, spill files,
//     budgets, progress, the results directory's manifest) through the sink;
//   - sweep/study: the studies built on the runner (the rounds of a sequential
//     selection, a bisection) and the status of a study;
//   - sweep/slurm: the script of a Slurm job array.
//
// What a command prints (the job table, the pivot, sim's summary) is cmd/rocesweep's.
package sweep
