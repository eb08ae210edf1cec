package main

import (
	"context"
	"errors"
	"io"
)

// cmdExplain is a placeholder until its owner lands it.
func cmdExplain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("explain: not implemented yet")
}
