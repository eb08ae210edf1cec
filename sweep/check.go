package sweep

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
