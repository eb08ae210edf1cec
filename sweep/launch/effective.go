package launch

import (
	"fmt"
	"strings"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/sweep/specfile"
)

// Setting is one line of a results directory's effective configuration.
type Setting struct{ Name, Value string }

// EffectiveConfig resolves what a results directory ran: manifest.json's spec with its
// --set and --grid overrides applied (specfile.ParseOverrides, as `run` did), then every
// attribute whose value differs from the built-in default, in schema order; swept
// attributes show their values instead; workload mix entries as workload.mix.N.key. An
// error means the spec cannot be resolved by this tool (not recorded, or of another
// version).
func EffectiveConfig(dir string) ([]Setting, error) {
	m, err := resultsdir.ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	if m.Spec == "" {
		return nil, fmt.Errorf("manifest.json records no spec text")
	}
	file := m.SpecFile
	if file == "" {
		file = "manifest.json spec"
	}
	spec, err := specfile.ParseOverrides(file, []byte(m.Spec), specfile.Overrides{Sets: m.Sets, Grids: m.Grids})
	if err != nil {
		return nil, err
	}
	swept := map[string]string{}
	for _, a := range spec.Axes {
		var vals []string
		for _, v := range a.Values {
			vals = append(vals, v.Text)
		}
		desc := "swept: " + strings.Join(vals, ", ")
		if len(vals) == 0 {
			desc = "swept (sampled range)"
		}
		swept[a.Attr.Path] = desc
	}
	var out []Setting
	if spec.Replicates != 1 {
		out = append(out, Setting{Name: "replicates", Value: fmt.Sprint(spec.Replicates)})
	}
	cfg := spec.Base
	for _, a := range config.Schema() {
		if a.Path == "name" || a.Path == "workload.mix" {
			continue
		}
		if d, ok := swept[a.Path]; ok {
			out = append(out, Setting{Name: a.Path, Value: d})
			continue
		}
		v, err := cfg.Get(a.Path)
		if err != nil || v == a.Default {
			continue
		}
		out = append(out, Setting{Name: a.Path, Value: v})
	}
	// Tier blocks (spec.md "Per-tier switches and cables"): what each sets, then the
	// swept tier attributes.
	for tier, name := range config.TierNames {
		for _, kv := range cfg.TierSettings(tier) {
			k, v, _ := strings.Cut(kv, " ")
			out = append(out, Setting{Name: "tiers." + name + "." + k, Value: v})
		}
	}
	for _, a := range spec.Axes {
		if strings.HasPrefix(a.Attr.Path, "tiers.") {
			out = append(out, Setting{Name: a.Attr.Path, Value: swept[a.Attr.Path]})
		}
	}
	def := config.DefaultWorkload()
	for n := range cfg.Workload.Mix {
		for _, a := range config.Schema() {
			key, ok := strings.CutPrefix(a.Path, "workload.")
			if !ok || key == "mix" {
				continue
			}
			p := fmt.Sprintf("workload.mix.%d.%s", n, key)
			v, err := cfg.Get(p)
			if err != nil {
				continue
			}
			dc := config.Config{Workload: def}
			dc.Workload.Mix = []config.Workload{def}
			dv, _ := dc.Get(fmt.Sprintf("workload.mix.0.%s", key))
			if d, ok := swept[p]; ok {
				out = append(out, Setting{Name: p, Value: d})
			} else if v != dv {
				out = append(out, Setting{Name: p, Value: v})
			}
		}
	}
	return out, nil
}
