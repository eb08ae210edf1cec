package sweep

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rocesweep/rocesweep/model/config"
)

// Pick finds a job of p by id or index; "" is job 0.
func (p *Plan) Pick(sel string) (*Job, error) {
	if sel == "" {
		sel = "0"
	}
	for _, j := range p.Jobs {
		if j.ID == sel {
			return j, nil
		}
	}
	if i, err := strconv.Atoi(sel); err == nil && i >= 0 && i < len(p.Jobs) {
		return p.Jobs[i], nil
	}
	return nil, fmt.Errorf("--job %s: no job with that id, and not an index 0..%d (rocesweep plan SPEC lists them)", sel, len(p.Jobs)-1)
}

// SingleConfig is the configuration of a single-job command (explain): the spec file's
// data (its sweep section ignored; no file when file is "") or the defaults, then each
// --set path=value in order.
func SingleConfig(file string, data []byte, sets []string) (config.Config, error) {
	cfg := config.Default()
	if file != "" {
		var err error
		if cfg, err = config.Load(file, data); err != nil {
			return cfg, err
		}
	}
	for _, s := range sets {
		path, value, ok := strings.Cut(s, "=")
		if !ok {
			return cfg, fmt.Errorf("--set %q: want path=value", s)
		}
		if err := cfg.Set(strings.TrimSpace(path), value); err != nil {
			return cfg, fmt.Errorf("--set %s: %w", s, err)
		}
	}
	return cfg, nil
}
