package resultsdir

// BisectionStatus is where a bisection stands (selection.BisectDecision, replayed by the
// sweep package from the committed jobs), with every value in the attribute's units and
// the seed's sizing guidance beside each answer: what `status --json` prints under
// `bisection`, and what the report's first screen and the run's closing table show.
type BisectionStatus struct {
	State string `json:"state"` // running, decided, budget
	Why   string `json:"why"`
	// Direction is smallest or largest; Attr the attribute as the spec names it;
	// Range and Resolution as the spec writes them; SubjectTo what makes a value safe.
	Direction  string    `json:"direction"`
	Attr       string    `json:"attr"`
	Range      [2]string `json:"range"`
	Resolution string    `json:"resolution"`
	SubjectTo  []string  `json:"subject_to"`
	// Deterministic: one run per probe decides (the spec says its jobs draw nothing
	// random that depends on the replicate); else each probe is a sequential test.
	Deterministic bool `json:"deterministic"`
	Checks        int  `json:"checks"` // monotonicity checks per condition
	// Round is the probes of the condition furthest along; Jobs the jobs used, NeedJobs
	// the jobs the next round waits for, MaxJobs the budget.
	Round    int `json:"round"`
	Jobs     int `json:"jobs"`
	NeedJobs int `json:"need_jobs"`
	MaxJobs  int `json:"max_jobs"`
	// Steps is the number of resolution steps in the range (K: K + 1 values);
	// ProbesPerCondition the most probes a condition takes (1 + ⌈log2(K + 1)⌉ + checks).
	Steps              int `json:"steps"`
	ProbesPerCondition int `json:"probes_per_condition"`
	// Confidence and its split (stochastic jobs only): each probe's share of
	// 1 − confidence, each of its tests' share, the rare-event resolution and the clean
	// runs after which a probe's plain conditions are accepted.
	Confidence float64 `json:"confidence"`
	PerProbe   float64 `json:"per_probe,omitempty"`
	PerTest    float64 `json:"per_test,omitempty"`
	Tests      int     `json:"tests_per_probe"`
	Rare       float64 `json:"rare,omitempty"`
	RareRuns   int     `json:"rare_runs,omitempty"`
	// Unit is the unit of Answer, Fails and Formula values: B, s, bps, or "" for a number.
	Unit string `json:"unit,omitempty"`
	// ConditionAxes are the swept attributes that make the conditions, as the spec
	// writes them (a zip group's together).
	ConditionAxes []string          `json:"condition_axes"`
	Conditions    []ConditionStatus `json:"conditions"`
}

// ConditionStatus is one condition of a bisection.
type ConditionStatus struct {
	Label  string            `json:"label"`
	Values map[string]string `json:"values"` // jobs column → value as the spec writes it (the condition's axes)
	State  string            `json:"state"`  // running, answered, none-safe, non-monotone, failed, budget
	Why    string            `json:"why"`
	// Answer is the smallest (largest) value that held; Fails the value one resolution
	// step beyond it, which failed (null when the answer is the range's end). In the
	// column's unit (Unit); the texts as a spec writes values.
	Answer     *float64 `json:"answer"`
	AnswerText string   `json:"answer_text,omitempty"`
	Fails      *float64 `json:"fails"`
	FailsText  string   `json:"fails_text,omitempty"`
	Jobs       int      `json:"jobs"`
	// Probes are the values judged, in the order run.
	Probes        []ProbeStatus `json:"probes"`
	Contradiction string        `json:"contradiction,omitempty"`
	// Formula is the seed's sizing guidance for the attribute at this condition, when it
	// has one (a switch headroom, a NIC Xoff); nil otherwise.
	Formula *Formula `json:"formula,omitempty"`
}

// ProbeStatus is one probe of a condition.
type ProbeStatus struct {
	Value   string `json:"value"`
	Verdict string `json:"verdict"` // holds, fails, open
	Runs    int    `json:"runs"`
	Jobs    int    `json:"jobs"`
	Check   bool   `json:"check,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// Formula is the seed's sizing guidance for a bisected attribute (`rocesweep explain`'s
// figures, switch.md §4.6, nic.md §12.4) beside the measured answer.
type Formula struct {
	// What says which rule gives it and on what: "headroom needed on the rack-nic link
	// (400 Gbps, Delay 1 µs): 2 × rate × Delay / 8 + 2 × Mtu (switch.md §4.6 condition 1)".
	What  string  `json:"what"`
	Value float64 `json:"value"` // in the attribute's column unit
	Text  string  `json:"text"`
	// Margin is how conservative the formula is against the answer, in the column unit:
	// positive when it asks for a safer value than needed (more headroom than the
	// smallest safe, a lower Xoff than the largest safe), negative when it would allow an
	// unsafe one. MarginText says it with the percent of the answer: "+5,368 B (+41%):
	// conservative", "−0.0021 (−0.2%): unsafe here".
	Margin     *float64 `json:"margin"`
	MarginText string   `json:"margin_text,omitempty"`
	// Pause names the pause points at the answer: the switch's Xoff and Xon, or the NIC's
	// Xoff and headroom in bytes.
	Pause string `json:"pause,omitempty"`
}
