package main

import (
	"context"
	"errors"
	"io"
)

// cmdPlan is a placeholder until its owner lands it.
func cmdPlan(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("plan: not implemented yet")
}
