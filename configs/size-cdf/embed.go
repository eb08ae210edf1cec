// Package sizecdf embeds the message-size CDFs of the `load` workload (README.md gives
// the format) so that the binary finds them by name without a checkout.
package sizecdf

import "embed"

// FS holds NAME.txt for every distribution in this directory; pass it to
// workload.Generate as cdfDir.
//
//go:embed *.txt
var FS embed.FS
