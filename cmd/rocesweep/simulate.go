package main

import (
	"context"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/fabric"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/sweep"
)

// simulate is the real job of `run` and `sim`: one fabric simulation (model/fabric).
func simulate(ctx context.Context, cfg config.Config, jobID string) (*stats.Result, error) {
	// Under the sweep runner the rows leave the job in batches as they are produced.
	return runFabric(ctx, cfg, fabric.Options{JobID: jobID, Emit: sweep.Emitter(ctx)})
}

// validateJob adds the fabric's checks (topology, workload) to config.Validate for the
// planner, so invalid grid points are named before anything runs.
func validateJob(cfg *config.Config) error { return fabric.Validate(cfg) }
