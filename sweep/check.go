package sweep

import (
	"io"
)

// ValidJobs counts the jobs of p that break no rule (run --skip-invalid runs those).
func (p *Plan) ValidJobs() int {
	n := 0
	for _, j := range p.Jobs {
		if j.Invalid == nil {
			n++
		}
	}
	return n
}

// CheckMetric refuses a metric that Pivot cannot tabulate (not a stats.MetricNames name),
// with the error Pivot gives, so that run refuses its --metric before any job runs.
func CheckMetric(m string) error { return Pivot(io.Discard, &Plan{}, nil, m) }
