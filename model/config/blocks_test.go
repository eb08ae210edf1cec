package config

// The model knows no sweep: in the binary, sweep registers its top-level keys and its
// `sweep:` block with their keys (config.RegisterTopKeys and config.RegisterBlock in
// sweep/specfile/spec.go). config's own tests stand in for it here, so that Load ignores
// the sweep's keys of the test specs and TestYAMLSlips sees the message for a sweep key
// written at the top level; sweep's TestSweepKeysUnindented checks the real
// registration, key by key.
func init() {
	RegisterTopKeys("replicates", "sweep", "objective", "select")
	RegisterBlock("sweep", []string{"grid", "zip", "constraint", "sample", "conditions"})
}
