package main

import (
	"context"
	"errors"
	"io"
)

// cmdRun is a placeholder until its owner lands it.
func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("run: not implemented yet")
}
