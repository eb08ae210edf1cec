// Package configs embeds the ready sweep specs of this folder, so that `rocesweep run`
// without a SPEC runs quickstart.yaml from any working directory.
package configs

import "embed"

// FS holds the *.yaml specs of this folder.
//
//go:embed *.yaml
var FS embed.FS

// Quickstart returns configs/quickstart.yaml, the sweep `rocesweep run` runs without SPEC.
func Quickstart() []byte {
	data, err := FS.ReadFile("quickstart.yaml")
	if err != nil {
		panic("configs: quickstart.yaml is not embedded: " + err.Error())
	}
	return data
}
