package config

// The model knows no sweep: in the binary, sweep registers its `sweep:` block and keys
// (config.RegisterBlock in sweep/specfile/spec.go). config's own tests stand in for it here, so
// that TestYAMLSlips sees the message for a sweep key written at the top level; sweep's
// TestSweepKeysUnindented checks the real registration, key by key.
func init() {
	RegisterBlock("sweep", []string{"grid", "zip", "constraint", "sample", "conditions"})
}
