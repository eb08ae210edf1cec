package report

import (
	"encoding/base64"
	"html/template"
	"io"
	"sync"
)

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
		"cell": cellText,
	}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>rocesweep report: {{.Name}}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { margin-bottom: 0.2em; }
table { border-collapse: collapse; margin: 0.5em 0; }
td, th { border: 1px solid #ccc; padding: 2px 6px; text-align: left; font-size: 0.9em; }
td.num, td.cell { text-align: right; font-variant-numeric: tabular-nums; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; }
section.metric { border-top: 1px solid #ddd; padding-top: 0.5em; }
.charts { display: flex; flex-wrap: wrap; gap: 8px; }
figure { margin: 0; }
figcaption { font-size: 0.85em; color: #555; max-width: 640px; }
.fail { color: #a00; }
nav a { margin-right: 0.6em; }
</style>
</head>
<body>
<h1>{{.Name}}</h1>
<p>Results directory <code>{{.Dir}}</code>{{if .Version}}, rocesweep {{.Version}}{{end}}{{if .Start}}, started {{.Start}}{{end}}.</p>
<table>
<tr><th>plan size</th><td class="num">{{if .PlanSize}}{{.PlanSize}}{{else}}not recorded{{end}}</td></tr>
<tr><th>jobs in the results</th><td class="num">{{.Rows}}</td></tr>
<tr><th>jobs ok</th><td class="num">{{.OK}}</td></tr>
<tr><th>failed, timed out or invalid</th><td class="num{{if .Failures}} fail{{end}}">{{len .Failures}}</td></tr>
<tr><th>swept axes</th><td>{{range $i, $a := .Axes}}{{if $i}} × {{end}}<code>{{$a}}</code>{{else}}none{{end}}</td></tr>
</table>
{{range .Notes}}<p><em>{{.}}</em></p>
{{end}}
{{if .Failures}}<h2 id="failures">Failures</h2>
<table>
<tr><th>job</th><th>status</th><th>parameters</th><th>error</th></tr>
{{range .Failures}}<tr><td><code>{{.JobID}}</code></td><td class="fail">{{.Status}}</td><td>{{.Params}}</td><td>{{.Error}}</td></tr>
{{end}}</table>
{{end}}
<h2 id="config">Configuration shared by all jobs</h2>
{{if .Shared}}<table>
<tr><th>parameter</th><th>value</th></tr>
{{range .Shared}}<tr><td><code>{{.Name}}</code></td><td>{{.Value}}</td></tr>
{{end}}</table>{{end}}
{{if .Spec}}<details open><summary>Sweep spec as given (manifest.json)</summary>
<pre>{{.Spec}}</pre>
</details>{{end}}
<nav>{{range .Metrics}}<a href="#m-{{.Metric}}">{{.Metric}}</a>{{end}}{{range .Series}}<a href="#job-{{.JobID}}">job {{.JobID}}</a>{{end}}</nav>
{{range .Metrics}}<section class="metric" id="m-{{.Metric}}">
<h2>{{.Metric}}</h2>
<div class="charts">
{{range .Charts}}<figure class="{{.Kind}}" id="{{.ID}}"{{if .Cells}} data-cells="{{.Cells}}"{{end}}>
<img src="{{png .PNG}}" width="{{.W}}" height="{{.H}}" alt="{{.Title}}">
<figcaption>{{.Title}}</figcaption>
</figure>
{{end}}</div>
{{range .Charts}}{{if .Grid}}{{$g := .Grid}}<details><summary>{{.Metric}} values ({{.Cells}} cells: mean over ok jobs; n = jobs averaged)</summary>
<table class="grid" data-metric="{{.Metric}}">
<tr><th>{{$g.YAxis.Label}} \ {{$g.XAxis.Label}}</th>{{range $g.XAxis.Labels}}<th>{{.}}</th>{{end}}</tr>
{{range $j, $yl := $g.YAxis.Labels}}<tr><th>{{$yl}}</th>{{range $i, $xl := $g.XAxis.Labels}}<td class="cell" title="n={{index (index $g.N $i) $j}}">{{cell (index (index $g.Val $i) $j)}}</td>{{end}}</tr>
{{end}}</table>
</details>{{end}}{{end}}
</section>
{{end}}
{{range .Series}}<section class="metric" id="job-{{.JobID}}">
<h2>Job {{.JobID}}</h2>
<p>{{.Params}}</p>
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
`))
})
