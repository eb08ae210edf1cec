package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rocesweep/rocesweep/model"
	"github.com/rocesweep/rocesweep/sweep"
)

// writeJobTable writes the jobs of p, one a line: index, id, replicate, seed, then each
// axis's value as written (INVALID after an invalid job's).
func writeJobTable(w io.Writer, p *sweep.Plan) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"job", "id", "replicate", "seed"}
	for _, a := range p.Axes {
		head = append(head, a.Path)
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, j := range p.Jobs {
		line := []string{strconv.Itoa(j.Index), j.ID, strconv.Itoa(j.Replicate), strconv.FormatUint(j.Seed, 10)}
		for _, v := range j.Values {
			line = append(line, v.Text)
		}
		if j.Invalid != nil {
			line = append(line, "INVALID")
		}
		fmt.Fprintln(tw, strings.Join(line, "\t")+"\t")
	}
	tw.Flush()
}

// planJSON is the JSON form of a plan (rocesweep plan --json).
type planJSON struct {
	Name         string    `json:"name"`
	PlanSize     int       `json:"plan_size"`
	Points       int       `json:"points"`
	Filtered     int       `json:"filtered"`
	Replicates   int       `json:"replicates"`
	Axes         []string  `json:"axes"`
	ModelVersion string    `json:"model_version"`
	PlanHash     string    `json:"plan_hash"`
	Jobs         []jobJSON `json:"jobs"`
}

// jobJSON is a job of planJSON.
type jobJSON struct {
	Index     int               `json:"index"`
	ID        string            `json:"id"`
	Point     int               `json:"point"`
	Replicate int               `json:"replicate"`
	Seed      uint64            `json:"seed"`
	Params    map[string]string `json:"params"` // path → value as written
	Values    map[string]any    `json:"values"` // jobs column → typed value
	Invalid   string            `json:"invalid,omitempty"`
}

// writePlanJSON writes p as indented JSON: the plan's size, axes, model version and hash,
// then every job with its values as written (params) and typed by jobs column (values).
func writePlanJSON(w io.Writer, p *sweep.Plan) error {
	out := planJSON{Name: p.Spec.Base.Name, PlanSize: len(p.Jobs), Points: p.Points, Filtered: p.Filtered,
		Replicates: p.Spec.Replicates, Axes: []string{}, ModelVersion: model.Version, PlanHash: p.Hash()}
	for _, a := range p.Axes {
		out.Axes = append(out.Axes, a.Path)
	}
	for _, j := range p.Jobs {
		jj := jobJSON{Index: j.Index, ID: j.ID, Point: j.Point, Replicate: j.Replicate, Seed: j.Seed,
			Params: map[string]string{}, Values: map[string]any{}}
		for i, a := range p.Axes {
			jj.Params[a.Path] = j.Values[i].Text
			jj.Values[a.Column] = j.Values[i].Typed
		}
		if j.Invalid != nil {
			jj.Invalid = j.Invalid.Error()
		}
		out.Jobs = append(out.Jobs, jj)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
