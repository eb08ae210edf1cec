// Package study runs the studies that need more than one batch of jobs, on top of the
// runner (sweep/launch): a sequential selection's rounds (select.go) and a bisection's
// probes (bisectrun.go), each replayed from the journal so that a stopped study resumes;
// and it reads where a study stands for status and report (status.go).
package study
