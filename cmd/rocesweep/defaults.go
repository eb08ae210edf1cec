package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/model/config"
)

// cmdDefaults prints every attribute with its path, type, unit and default (design.md
// "Commands users type"), from config.Schema: a table, or a JSON array with --json.
func cmdDefaults(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("defaults", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var asJSON bool
	fs.BoolVar(&asJSON, "json", false, "print a JSON array")
	if err := fs.Parse(args); err != nil {
		return flagError("defaults", fs, err)
	}
	if fs.NArg() > 0 {
		return usagef("defaults: no arguments expected, got %q", fs.Args())
	}
	attrs := config.Schema()
	if asJSON {
		for i := range attrs {
			if attrs[i].Enum == nil {
				attrs[i].Enum = []string{}
			}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(attrs)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PATH\tTYPE\tUNIT\tDEFAULT\tDESCRIPTION")
	for _, a := range attrs {
		doc := a.Doc
		if len(a.Enum) > 0 {
			doc = strings.TrimSpace("one of " + strings.Join(a.Enum, ", ") + "; " + doc)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", a.Path, a.Type, dash(a.Unit), a.Default, doc)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "\nUnits: bytes B, KB=1,000, KiB=1,024, MB, MiB, GB, GiB; datarate Gbps, Mbps; timeval ps, ns, us, ms, s.")
	fmt.Fprintln(stdout, "Short names work when unique in a device: switch.LossyAlpha = switch.SharedBufferManager.LossyAlpha.")
	return nil
}
