package main

import (
	"context"
	"errors"
	"io"
)

// cmdDefaults is a placeholder until its owner lands it.
func cmdDefaults(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("defaults: not implemented yet")
}
