package main

import (
	"context"
	"errors"
	"io"
)

// cmdSim is a placeholder until its owner lands it.
func cmdSim(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("sim: not implemented yet")
}
