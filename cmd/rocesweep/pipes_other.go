//go:build !unix

package main

import "os"

// workerPipes returns the worker's stdin and stdout (see pipes_unix.go).
func workerPipes() (stdin, stdout *os.File) { return os.Stdin, os.Stdout }
