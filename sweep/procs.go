package sweep

// Procs splits p processors (GOMAXPROCS) between the runner of a sweep whose jobs run in
// worker processes (Options.Isolate) and each of its j workers. A worker runs one job at
// a time and a job's simulation is one goroutine, so a worker's share is p/j processors,
// at least one; the runner, which only writes the rows of finished jobs (one goroutine)
// and waits on its workers' pipes, keeps what the workers leave, at least one. A Go
// process given more processors than it has work for wakes idle threads for every
// timer and pipe read; with -j at the machine's processor count each of the j+1
// processes did so for every job, which cost a fifth of a small sweep's CPU time and
// wall time (performance.md "Performance"). No row depends on it: a job's simulation never
// runs in parallel.
func Procs(p, j int) (runner, worker int) {
	j = max(j, 1)
	worker = max(p/j, 1)
	runner = max(p-j*worker, 1)
	return runner, worker
}
