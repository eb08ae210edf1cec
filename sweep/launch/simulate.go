package launch

import (
	"context"

	"github.com/rocesweep/rocesweep/internal/memory"
	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/fabric"
	"github.com/rocesweep/rocesweep/model/stats"
)

// Simulate is the real job of `run` and `sim`: one fabric simulation (model/fabric).
// Under the sweep runner the rows leave the job in batches through emit as they are
// produced.
func Simulate(ctx context.Context, cfg config.Config, jobID string, emit func(stats.Batch) error) (*stats.Result, error) {
	return runFabric(ctx, cfg, fabric.Options{JobID: jobID, Emit: emit})
}

// ValidateJob adds the fabric's checks (topology, workload) to config.Validate for the
// planner, so invalid grid points are named before anything runs.
func ValidateJob(cfg *config.Config) error { return fabric.Validate(cfg) }

// runFabric runs one fabric job under the process's memory policy (internal/memory),
// which the model leaves to its caller: a fabric estimated at memory.HugeHeap or more
// gets huge pages, with room for its frames in flight (twice its devices), before it is
// built; once built, a large one gets a tighter collector; once drained, a large heap is
// collected before the rows are built. None of it changes a row: only where memory
// comes from and when it is collected.
func runFabric(ctx context.Context, cfg config.Config, opts fabric.Options) (*stats.Result, error) {
	if est, err := fabric.EstimateJob(&cfg); err == nil { // an invalid job: Run says why
		if devs := est.DeviceBytes(); devs >= memory.HugeHeap {
			memory.HugePages(int(2 * devs))
		}
	}
	opts.Built, opts.Drained = memory.TightenIfLarge, memory.CollectIfLarge
	return fabric.Run(ctx, cfg, opts)
}
