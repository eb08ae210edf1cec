package workload

import (
	"embed"
	"io/fs"
)

// sizeCDFDir embeds the message-size distributions of the `load` workload shipped with
// the model (sizecdf/README.md gives the format and the sources), so that a binary finds
// them by name without a checkout.
//
//go:embed sizecdf/*.txt
var sizeCDFDir embed.FS

// SizeCDFs holds NAME.txt for every shipped distribution: the cdfDir of Generate,
// CountMessages and LoadCDF that resolves workload.distribution names.
var SizeCDFs fs.FS = mustSub(sizeCDFDir, "sizecdf")

func mustSub(f fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		panic(err) // a literal, valid directory name
	}
	return sub
}
