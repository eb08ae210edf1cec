package main

import (
	"context"
	"errors"
	"io"
)

// cmdReport is a placeholder until its owner lands it.
func cmdReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("report: not implemented yet")
}
