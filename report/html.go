package report

import (
	"encoding/base64"
	"html/template"
	"io"
	"strings"
	"sync"
)

// sectionData is what the "metric" template needs: a metric's charts and the replicates.
type sectionData struct {
	M    MetricCharts
	Reps int
}

// codeSpans escapes s and sets its `backquoted` parts (commands) as code.
func codeSpans(s string) template.HTML {
	parts := strings.Split(s, "`")
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 && i < len(parts)-1 {
			b.WriteString("<code>" + template.HTMLEscapeString(p) + "</code>")
			continue
		}
		if i%2 == 1 { // an unpaired backquote: as it is
			b.WriteString("`")
		}
		b.WriteString(template.HTMLEscapeString(p))
	}
	return template.HTML(b.String())
}

// WriteHTML writes the report as one self-contained HTML page: styles inline, charts as
// base64 PNG data URLs, no script and no network access.
func (r *Report) WriteHTML(w io.Writer) error {
	return page().Execute(w, r)
}

// page is the report's HTML template, parsed on first use (not at package initialisation:
// commands other than report never render it).
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"png": func(b []byte) template.URL {
			return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(b))
		},
		"cell":    cellText,
		"code":    codeSpans,
		"section": func(m MetricCharts, reps int) sectionData { return sectionData{M: m, Reps: reps} },
		"fewNote": func() string { return fewNote },
		"answerFew": func(as []Answer) bool {
			for _, a := range as {
				if strings.HasSuffix(a.Count, "†") || strings.HasSuffix(a.RunnerCount, "†") {
					return true
				}
			}
			return false
		},
	}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>rocesweep report: {{.Name}}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; max-width: 1400px; }
h1 { margin-bottom: 0.2em; }
p.sub { margin-top: 0; color: #444; }
p.headline { font-size: 1.25em; background: #fff7e0; border-left: 5px solid #e0a000; padding: 0.5em 0.8em; margin-bottom: 0; }
table { border-collapse: collapse; margin: 0.5em 0; }
td, th { border: 1px solid #ccc; padding: 2px 6px; text-align: left; font-size: 0.9em; vertical-align: top; }
td.num, td.cell { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.num .small { white-space: normal; }
.clear { font-weight: bold; }
.small { font-size: 0.85em; color: #555; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; }
section.metric { border-top: 1px solid #ddd; padding-top: 0.5em; }
.charts { display: flex; flex-wrap: wrap; gap: 8px; }
figure { margin: 0; }
figcaption { font-size: 0.85em; color: #555; max-width: 640px; }
.fail { color: #a00; }
nav a { margin-right: 0.6em; }
p.objective { margin: 0.6em 0 0.2em; }
div.decision { border-left: 5px solid #e0a000; padding: 0.1em 0.8em; margin-bottom: 1em; }
div.decision p { margin: 0.4em 0; }
p.guarantee { font-size: 1.1em; font-weight: bold; }
div.scroll { max-height: 18em; overflow-y: auto; display: inline-block; }
details#all-metrics { border-top: 1px solid #ddd; padding-top: 0.5em; margin-top: 1em; }
details#all-metrics > summary { font-size: 1.2em; cursor: pointer; }
details#all-metrics section.metric { display: inline-block; vertical-align: top; margin-right: 12px; }
</style>
</head>
<body>
<h1>{{.Name}}</h1>
<p class="sub">{{.OK}} of {{.Rows}} jobs ok{{if .PlanSize}} (plan: {{.PlanSize}} jobs){{end}}{{if .Failures}}, <span class="fail">{{len .Failures}} failed, timed out or invalid</span>{{end}};
{{.Replicates}} replicate{{if ne .Replicates 1}}s{{end}} per point; swept: {{range $i, $a := .Axes}}{{if $i}} × {{end}}<code>{{$a}}</code>{{else}}nothing{{end}}.
Results <code>{{.Dir}}</code>{{if .Version}}, rocesweep {{.Version}}{{end}}{{if .Start}}, started {{.Start}}{{end}}.</p>
{{if .Objective}}<p class="objective" id="objective"><strong>Objective:</strong> {{.Objective}}.{{if .ObjectiveDefault}} <em>{{.ObjectiveDefault}}</em>{{end}}</p>
{{end}}{{if .Headline}}<p class="headline" id="headline">{{code .Headline}}</p>
{{end}}{{with .Bisection}}{{template "bisection" .}}{{end}}{{with .Decision}}<div class="decision" id="decision" data-state="{{.State}}">
{{if .Guarantee}}<p class="guarantee" id="guarantee">{{.Guarantee}}</p>
{{end}}{{if .Front}}<table class="front" id="front"><tr><th>point on the front</th>{{range .FrontHead}}<th>{{.}}</th>{{end}}</tr>
{{range .Front}}<tr><td>{{.Point}}</td>{{range .Values}}<td class="num">{{.}}</td>{{end}}</tr>
{{end}}</table>
{{end}}{{range .Costs}}<p class="cost-class"><strong>The choice {{.}}.</strong></p>
{{end}}{{if .Classes}}<table class="classes" id="classes"><tr><th>traffic class</th><th>completed</th><th>goodput</th><th>p99 FCT</th><th>best any point achieved</th></tr>
{{range .Classes}}<tr><td>{{.Class}}</td><td class="num">{{.Completed}}</td><td class="num">{{.Goodput}}</td><td class="num">{{.P99}}</td><td class="small">completed {{.BestCompleted}}; goodput {{.BestGoodput}}; p99 {{.BestP99}}</td></tr>
{{end}}</table>
{{end}}{{if and .Equivalent (not .Flat)}}<p id="equivalent">As good to within the indifference, as measured ({{len .Equivalent}}): {{range $i, $c := .Equivalent}}{{if $i}}; {{end}}{{$c}}{{end}}.</p>
{{end}}{{if .BestSoFar}}<p>{{.BestSoFar}}</p>
{{end}}{{if .Contenders}}<p>Still in contention ({{len .Contenders}}): {{range $i, $c := .Contenders}}{{if $i}}; {{end}}{{$c}}{{end}}.</p>
{{end}}{{if .Few}}<p class="small">{{fewNote}}</p>
{{end}}{{if .Feasibility}}<p id="feasibility">{{.Feasibility}}</p>
{{end}}{{if .Why}}{{if eq .State "decided"}}<p>Why it stopped: {{.Why}}</p>
{{else if .Fixed}}<p>Why: {{.Why}}</p>
{{end}}{{end}}{{if .Next}}<p class="next"><strong>Next:</strong> {{code .Next}}</p>
{{end}}{{if .Cost}}<p id="cost">{{.Cost}}</p>
{{end}}<p class="small">{{.Procedure}}</p>
{{if .Split}}<p class="small" id="split">{{.Split}}</p>
{{end}}{{if .Eliminated}}<h3 id="eliminated">Eliminated: {{len .Eliminated}} point{{if ne (len .Eliminated) 1}}s{{end}}, in the order they left</h3>
<div class="scroll"><table class="eliminated">
<tr><th>point</th><th>left in round<br><span class="small">0: after the first stage</span></th><th>mean</th><th>replicates</th><th>why</th></tr>
{{range .Eliminated}}<tr><td>{{.Point}}</td><td class="num">{{.Round}}</td><td class="num">{{.Mean}}</td><td class="num">{{.Used}}</td><td class="small">{{.Reason}}</td></tr>
{{end}}</table></div>
{{end}}</div>
{{end}}{{range .Notes}}<p><em>{{.}}</em></p>
{{end}}
{{if or .Answers .Constant .Uniform}}<h2 id="answers">{{if .Bisection}}The same at every probe{{else}}Answers{{end}}</h2>
{{if .Answers}}<table class="answers">
{{$reps := gt $.Replicates 1}}<tr><th>metric</th><th>best point</th><th>best value{{if not $reps}}<br><span class="small">one replicate: no interval</span>{{end}}</th><th>runner-up − best{{if $reps}} (paired){{end}}</th>{{if $reps}}<th>points within noise of the best</th>{{end}}<th>neighbours − best{{if $reps}} (paired; bold: beyond noise){{else}} (one replicate: no interval){{end}}</th></tr>
{{range .Answers}}<tr><td><code>{{.Metric}}</code><br><span class="small">{{.Better}} is better</span></td><td>{{.Best}}{{if .Equal}}<br><span class="small">and {{.Equal}} other points at the same value</span>{{end}}{{if .Among}}<br><span class="small">{{.Among}}</span>{{end}}</td>
<td class="num">{{.Value}}{{if .Count}}<br><span class="small">{{.Count}}</span>{{end}}</td>
<td class="num">{{if .RunnerUp}}{{.Delta}}<br><span class="small">{{.RunnerUp}}: {{.RunnerVal}}{{if .RunnerCount}} ({{.RunnerCount}}){{end}}</span>{{else}}every point ties{{end}}</td>
{{if $reps}}<td class="num">{{.Tied}}</td>{{end}}
<td class="small">{{range $i, $n := .Neighbours}}{{if $i}}<br>{{end}}<span{{if $n.Clear}} class="clear"{{end}}>{{$n.Change}}: {{$n.Delta}}</span>{{else}}-{{end}}</td></tr>
{{end}}</table>{{end}}
{{if .Constant}}<p>Values: {{range $i, $c := .Constant}}{{if $i}}, {{end}}<code>{{$c.Name}}</code> = {{$c.Value}}{{end}}.</p>{{end}}
{{if .Uniform}}<p id="uniform">{{.UniformLine}}</p>{{end}}
{{if .Answers}}{{if answerFew .Answers}}<p class="small">{{fewNote}}</p>{{end}}{{end}}
{{if not $.Bisection}}<p class="small">{{.AnswerNote}}Answers, in this order when the results have them and they vary: {{if .Objective}}the objective's metric and its also metrics, then {{end}}the lossless class's p99 FCT and p99 slowdown, lossless drops, the lossy class's p99 FCT, lossy drops, goodput, PFC pause time.</p>{{end}}
{{if .Pareto}}<h3 id="pareto">Pareto front: <code>{{.Pareto.X}}</code> vs <code>{{.Pareto.Y}}</code></h3>
<p class="small">The points no other point beats on both (by their means, lower is better), by increasing {{.Pareto.X}}.</p>
<table class="pareto">
<tr><th>point</th><th>{{.Pareto.X}}</th><th>{{.Pareto.Y}}</th></tr>
{{range .Pareto.Points}}<tr><td>{{.Point}}{{if .Same}} <span class="small">and {{.Same}} more with the same values</span>{{end}}</td><td class="num">{{.X}}</td><td class="num">{{.Y}}</td></tr>
{{end}}</table>{{end}}
{{end}}
{{if .Failures}}<h2 id="failures">Failures</h2>
<table>
<tr><th>job</th><th>status</th><th>parameters</th><th>error</th></tr>
{{range .Failures}}<tr><td><code>{{.JobID}}</code></td><td class="fail">{{.Status}}</td><td>{{.Params}}</td><td>{{.Error}}</td></tr>
{{end}}</table>
{{end}}
<h2 id="config">Effective configuration</h2>
{{if .Sets}}<p>Overrides on the command line: {{range .Sets}}<code>{{.}}</code> {{end}}</p>{{end}}
{{if .Effective}}<p class="small">Every setting that ran with a value other than its built-in default (<code>rocesweep defaults</code>): the spec with the overrides applied. Swept settings show their values.</p>
<table>
<tr><th>setting</th><th>value</th></tr>
{{range .Effective}}<tr><td><code>{{.Name}}</code></td><td>{{.Value}}</td></tr>
{{end}}</table>
{{else if .Shared}}<p class="small">Columns of <code>jobs</code> with one value for every job (the spec could not be resolved here).</p>
<table>
<tr><th>parameter</th><th>value</th></tr>
{{range .Shared}}<tr><td><code>{{.Name}}</code></td><td>{{.Value}}</td></tr>
{{end}}</table>{{end}}
{{if .Spec}}<details><summary>Sweep spec as given (manifest.json)</summary>
<pre>{{.Spec}}</pre>
</details>{{end}}
{{if .Metrics}}<nav>{{range .FocusMetrics}}<a href="#m-{{.Metric}}">{{.Metric}}</a> {{end}}{{if .OtherMetrics}}<a href="#all-metrics">all metrics</a> {{end}}{{if .Perf}}<a href="#perf">simulator performance</a> {{end}}{{range .Series}}<a href="#job-{{.JobID}}">job {{.JobID}}</a> {{end}}</nav>{{end}}
{{range .FocusMetrics}}{{template "metric" (section . $.Replicates)}}{{end}}
{{with .OtherMetrics}}<details id="all-metrics"><summary><strong>All metrics</strong>: {{len .}} more, one {{$.OtherKind}} each{{if $.Uniform}} (those with one value at every point are listed under Answers){{end}}; <code>rocesweep report --metric NAME</code> draws one in full.</summary>
{{range .}}{{template "metric" (section . $.Replicates)}}{{end}}
</details>
{{end}}{{if .Perf}}<h2 id="perf">Simulator performance</h2>
<p class="small">How the simulator ran, not how the fabric behaves; over the ok jobs.</p>
<table>
<tr><th>column</th><th>mean</th><th>min</th><th>max</th><th>total</th></tr>
{{range .Perf}}<tr><td><code>{{.Metric}}</code></td><td class="num">{{.Mean}}</td><td class="num">{{.Min}}</td><td class="num">{{.Max}}</td><td class="num">{{.Total}}</td></tr>
{{end}}</table>{{end}}
{{range .Series}}<section class="metric" id="job-{{.JobID}}">
<h2>Job {{.JobID}}</h2>
<p>{{.Params}}</p>
{{if .Intervals}}<p><em>{{.Intervals}}</em></p>{{end}}
{{if .Missing}}<p><em>Not in this results directory: {{range $i, $m := .Missing}}{{if $i}}, {{end}}{{$m}}{{end}}.</em></p>{{end}}
<div class="charts">
{{range .Charts}}<figure class="{{.Kind}}" id="{{.ID}}">
<img src="{{png .PNG}}" width="{{.W}}" height="{{.H}}" alt="{{.Title}}">
<figcaption>{{.Title}}</figcaption>
</figure>
{{end}}</div>
</section>
{{end}}
</body>
</html>
{{define "metric"}}{{$m := .M}}<section class="metric" id="m-{{$m.Metric}}">
<h2>{{$m.Metric}}</h2>
{{if $m.Count}}<p class="small">{{$m.Count}}.{{if $m.Few}} {{fewNote}}{{end}}</p>{{end}}
<div class="charts">
{{range $m.Charts}}<figure class="{{.Kind}}" id="{{.ID}}"{{if .Cells}} data-cells="{{.Cells}}"{{end}}>
<img src="{{png .PNG}}" width="{{.W}}" height="{{.H}}" alt="{{.Title}}">
<figcaption>{{.Title}}{{if .Note}} <strong>{{.Note}}</strong>{{end}}</figcaption>
</figure>
{{end}}</div>
{{range $m.Charts}}{{if .Grid}}{{$g := .Grid}}<details><summary>{{.Metric}} values ({{.Cells}} cells: {{if gt $.Reps 1}}mean ± 95% CI over replicates; n = replicates{{else}}one replicate: no interval{{end}})</summary>
<table class="grid" data-metric="{{.Metric}}">
<tr><th>{{$g.YAxis.Label}} \ {{$g.XAxis.Label}}</th>{{range $g.XAxis.Labels}}<th>{{.}}</th>{{end}}</tr>
{{range $j, $yl := $g.YAxis.Labels}}<tr><th>{{$yl}}</th>{{range $i, $xl := $g.XAxis.Labels}}<td class="cell" title="n={{index (index $g.N $i) $j}}">{{$g.Cell $i $j}}</td>{{end}}</tr>
{{end}}</table>
</details>{{end}}{{end}}
</section>
{{end}}
{{define "bisection"}}<div class="decision" id="bisection" data-state="{{.State}}">
<table class="bisection">
<tr><th>{{.Condition}}</th><th>{{.AnswerHead}}</th><th>{{.FailsHead}}</th><th>jobs</th>{{if .HasFormula}}<th>seed's formula<br><span class="small">rocesweep explain</span></th><th>formula vs answer</th><th>pause points</th>{{end}}</tr>
{{range .Rows}}<tr{{if .Flag}} class="fail"{{end}} data-state="{{.State}}"><td>{{.Condition}}</td><td class="num clear">{{.Answer}}</td><td class="num">{{.Fails}}</td><td class="num">{{.Jobs}}</td>{{if $.HasFormula}}<td class="num">{{.Formula}}</td><td class="small">{{.Margin}}</td><td class="small">{{.Pause}}</td>{{end}}</tr>
{{end}}</table>
{{if .HasFormula}}<p class="small">Formula: {{.FormulaWhat}}.</p>
{{end}}{{range .Notes}}<p class="fail">{{.}}</p>
{{end}}<p class="guarantee" id="guarantee">{{.Guarantee}}</p>
{{if .Next}}<p class="next"><strong>Next:</strong> {{code .Next}}</p>
{{end}}<p id="cost">{{.Cost}}</p>
<p class="small">{{.Procedure}}</p>
{{if .Split}}<p class="small" id="split">{{.Split}}</p>
{{end}}<details><summary>Probes, in the order run (✓ holds, ✗ fails)</summary>
<table class="probes">
{{range .Rows}}<tr><td>{{.Condition}}</td><td class="small">{{.Probes}}</td></tr>
{{end}}</table>
</details>
</div>
{{end}}`))
})
