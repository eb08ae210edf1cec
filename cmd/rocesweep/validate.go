package main

import (
	"context"
	"errors"
	"io"
)

// cmdValidate is a placeholder until its owner lands it.
func cmdValidate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("validate: not implemented yet")
}
