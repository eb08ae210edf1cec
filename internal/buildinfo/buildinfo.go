// Package buildinfo reads the build of the running binary: the module version and the
// VCS revision and time that go build and go install stamp in a clone.
package buildinfo

import "runtime/debug"

// Info is the build of the running binary; fields not stamped are "".
type Info struct {
	Module, Version string
	Revision, Time  string
	Modified        bool // built from a tree with uncommitted changes
}

// Read returns the build of the running binary: Version "unknown" without build
// information.
func Read() Info {
	var in Info
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: "unknown"}
	}
	in.Module, in.Version = bi.Main.Path, bi.Main.Version
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Revision = s.Value
		case "vcs.time":
			in.Time = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	return in
}

// Short is the module version and the revision's first 12 digits when stamped
// ("(devel) 8c70c57d1e2f"): what a results directory's manifest records as the tool's
// version.
func (in Info) Short() string {
	v := in.Version
	if len(in.Revision) >= 12 {
		v += " " + in.Revision[:12]
	}
	return v
}
