package main

import (
	"context"
	"errors"
	"io"
)

// cmdCompare is a placeholder until its owner lands it.
func cmdCompare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("compare: not implemented yet")
}
