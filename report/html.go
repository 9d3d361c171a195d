package report

import (
	"fmt"
	"html"
	"html/template"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/ledger"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// The HTML report: one self-contained file (inline CSS and SVG, no network, no external
// assets) that reads without JavaScript; a few lines of script only sort the tables. It shows
// first what a person looks for first: the verdict and totals, then a timeline of compilations,
// cache hits and loads per module family, the family table, one card per recompilation, the
// inputs. Everything is bounded: the timeline draws the families that cost most, the cards
// and diffs are capped, and the page says what it left out.

type htmlRenderer struct {
	unsupported
	meta Meta
}

// Limits of the HTML page, so that a report of a huge log or diff opens in seconds.
const (
	htmlMaxFamilies = 30  // rows of the timeline
	htmlMaxCards    = 50  // pair cards of a diff
	htmlMaxRows     = 500 // rows of a table
	htmlMaxDiffLine = 400 // characters of a diff line compared for highlighting
)

// Meta says where a report came from: recomp's version and the command line.
type Meta struct {
	Version string
	Command string
}

type htmlPage struct {
	Title    string
	Verdict  string // PASS, FAIL, ERROR, or "" when there is no verdict
	Class    string // verdict colour: ok, bad, warn
	Headline string
	Totals   []htmlTotal
	Timeline template.HTML
	Sections []htmlSection
	Meta     Meta
	Omitted  []string
}

type htmlTotal struct {
	Label, Value string
	Bad          bool
}

// htmlSection is one titled part of the page: a table, cards or a list.
type htmlSection struct {
	ID, Title string
	Table     *htmlTable
	Cards     []htmlCard
	Items     []string
	Note      string
}

type htmlTable struct {
	Head []htmlCell
	Rows []htmlRow
}

type htmlRow struct {
	Cells []htmlCell
	Bad   bool // the row is a problem
}

type htmlCell struct {
	Text string
	Num  bool
}

// newTable makes a table whose columns are numeric where numeric says so.
func newTable(numeric []bool, head ...string) *htmlTable {
	t := &htmlTable{}
	for i, h := range head {
		t.Head = append(t.Head, htmlCell{Text: h, Num: i < len(numeric) && numeric[i]})
	}
	return t
}

func (t *htmlTable) add(bad bool, cells ...string) {
	r := htmlRow{Bad: bad}
	for i, c := range cells {
		r.Cells = append(r.Cells, htmlCell{Text: c, Num: i < len(t.Head) && t.Head[i].Num})
	}
	t.Rows = append(t.Rows, r)
}

type htmlCard struct {
	Title    string
	Severity string // error, warning, info, ok
	Lines    []string
	Causes   []htmlCause
	Advice   string
	Diff     []htmlDiffRow
	Notes    []string
}

type htmlCause struct {
	Kind, Summary string
	Evidence      []string
	Advice        string
}

// htmlDiffRow is one row of a side-by-side diff; Left and Right are escaped HTML with the
// changed parts marked.
type htmlDiffRow struct {
	Kind        string // same, changed, added, removed, skip, comp
	Left, Right template.HTML
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="{{.Meta.Version}}">
<title>{{.Title}}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2433;background:#f6f7f9}
header{background:#1d2433;color:#fff;padding:18px 28px}
header h1{margin:0;font-size:20px;font-weight:600}
header p{margin:4px 0 0;color:#c8cdd8}
main{padding:18px 28px;max-width:1400px}
.verdict{display:inline-block;padding:2px 10px;border-radius:4px;font-weight:700;margin-right:10px}
.ok{background:#1f8a4c;color:#fff}.bad{background:#c0392b;color:#fff}.warn{background:#d68910;color:#fff}
.totals{display:flex;flex-wrap:wrap;gap:10px;margin:0 0 18px;padding:0;list-style:none}
.totals li{background:#fff;border:1px solid #dde1e8;border-radius:6px;padding:8px 14px;min-width:110px}
.totals b{display:block;font-size:20px}.totals .badv b{color:#c0392b}
section{background:#fff;border:1px solid #dde1e8;border-radius:6px;padding:12px 16px;margin:0 0 18px}
section h2{font-size:16px;margin:0 0 10px}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #eceef2;vertical-align:top}
th{background:#f0f2f5;cursor:pointer;user-select:none}td.n,th.n{text-align:right}tr.badrow td{background:#fdecea}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
.card{border:1px solid #dde1e8;border-left:5px solid #8a94a6;border-radius:6px;margin:0 0 12px;padding:8px 12px}
.card.error{border-left-color:#c0392b}.card.warning{border-left-color:#d68910}.card.info{border-left-color:#2e86c1}.card.ok{border-left-color:#1f8a4c}
.card h3{margin:0 0 6px;font-size:14px;word-break:break-all}.card p{margin:3px 0}
.cause{margin:6px 0}.cause .kind{display:inline-block;background:#e8ecf4;border-radius:3px;padding:0 6px;font-weight:600;margin-right:6px}
.advice{color:#3b4a63;font-style:italic}
ul.ev{margin:4px 0 4px 18px;padding:0}ul.ev li{font-family:ui-monospace,monospace;font-size:12px;word-break:break-all}
table.sbs{table-layout:fixed;margin-top:8px}table.sbs td{font-family:ui-monospace,monospace;font-size:12px;white-space:pre-wrap;word-break:break-all;width:50%;border:none;padding:1px 6px}
tr.removed td:first-child,tr.changed td:first-child{background:#fdecea}tr.added td:last-child,tr.changed td:last-child{background:#e9f7ef}
tr.skip td{color:#8a94a6;text-align:center;background:#f6f7f9}tr.comp td{font-weight:700;background:#eef1f7}
mark{background:#f5c16c;padding:0}
.omitted{color:#6b7385;font-size:13px}
footer{color:#6b7385;font-size:12px;padding:0 28px 24px}
svg text{font:11px system-ui,sans-serif;fill:#1d2433}
</style>
</head>
<body>
<header><h1>{{if .Verdict}}<span class="verdict {{.Class}}">{{.Verdict}}</span>{{end}}{{.Title}}</h1><p>{{.Headline}}</p></header>
<main>
<ul class="totals">{{range .Totals}}<li{{if .Bad}} class="badv"{{end}}><b>{{.Value}}</b>{{.Label}}</li>{{end}}</ul>
{{if .Timeline}}<section id="timeline"><h2>Timeline</h2>{{.Timeline}}</section>{{end}}
{{range .Sections}}<section id="{{.ID}}"><h2>{{.Title}}</h2>
{{if .Note}}<p class="omitted">{{.Note}}</p>{{end}}
{{with .Table}}<table class="sortable"><thead><tr>{{range .Head}}<th{{if .Num}} class="n"{{end}}>{{.Text}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr{{if .Bad}} class="badrow"{{end}}>{{range .Cells}}<td{{if .Num}} class="n"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody></table>{{end}}
{{range .Cards}}<div class="card {{.Severity}}"><h3>{{.Title}}</h3>
{{range .Lines}}<p class="mono">{{.}}</p>{{end}}
{{range .Causes}}<div class="cause"><span class="kind">{{.Kind}}</span>{{.Summary}}
{{if .Evidence}}<ul class="ev">{{range .Evidence}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Advice}}<p class="advice">{{.Advice}}</p>{{end}}</div>{{end}}
{{if .Advice}}<p class="advice">{{.Advice}}</p>{{end}}
{{range .Notes}}<p class="omitted">{{.}}</p>{{end}}
{{if .Diff}}<details open><summary>side-by-side diff</summary><table class="sbs"><tbody>
{{range .Diff}}<tr class="{{.Kind}}"><td>{{.Left}}</td><td>{{.Right}}</td></tr>
{{end}}</tbody></table></details>{{end}}
</div>{{end}}
{{if .Items}}<ul>{{range .Items}}<li class="mono">{{.}}</li>{{end}}</ul>{{end}}
</section>
{{end}}
{{if .Omitted}}<section id="omitted"><h2>Left out of this page</h2><ul>{{range .Omitted}}<li>{{.}}</li>{{end}}</ul></section>{{end}}
</main>
<footer>{{.Meta.Version}}{{if .Meta.Command}} · {{.Meta.Command}}{{end}}</footer>
<script>
document.querySelectorAll("table.sortable th").forEach(function(th, i){th.addEventListener("click",function(){
var tb=th.closest("table").tBodies[0],rows=Array.from(tb.rows),num=th.classList.contains("n"),asc=th.dataset.asc!=="1";
rows.sort(function(a,b){var x=a.cells[i].textContent,y=b.cells[i].textContent;if(num){x=parseFloat(x)||0;y=parseFloat(y)||0;return asc?x-y:y-x}return asc?x.localeCompare(y):y.localeCompare(x)});
th.dataset.asc=asc?"1":"0";rows.forEach(function(r){tb.appendChild(r)})})});
</script>
</body>
</html>
`))

func writePage(w io.Writer, p *htmlPage) error { return pageTemplate.Execute(w, p) }

func (hr htmlRenderer) scan(w io.Writer, s *Scan) error {
	p := scanPage(s, "recomp scan")
	p.Meta = hr.meta
	return writePage(w, p)
}

func (hr htmlRenderer) guard(w io.Writer, g *Guard) error {
	p := scanPage(g.Scan, "recomp guard")
	p.Meta = hr.meta
	gr := g.Gate
	p.Verdict = verdict(gr)
	p.Class = map[string]string{"PASS": "ok", "FAIL": "bad", "ERROR": "warn"}[p.Verdict]
	p.Headline = gr.Reason
	sec := htmlSection{ID: "gate", Title: "Gate"}
	for _, pr := range gr.Problems {
		sec.Cards = append(sec.Cards, htmlCard{Title: "no verdict: the evidence is incomplete", Severity: "warning", Lines: []string{pr}})
	}
	for _, f := range gr.Failures {
		c := htmlCard{Title: fmt.Sprintf("%s:%d", f.File, f.Line), Severity: "error", Lines: []string{failureText(f)}}
		if gr.Passed {
			c.Severity = "info"
		}
		sec.Cards = append(sec.Cards, c)
	}
	if n := gr.Compilations + gr.LoadFailures + gr.Divergences; n > len(gr.Failures) {
		sec.Note = fmt.Sprintf("%d failures, the first %d shown", n, len(gr.Failures))
	}
	if len(sec.Cards) == 0 {
		sec.Items = []string{gr.Reason}
	}
	p.Sections = append([]htmlSection{sec}, p.Sections...)
	guardExtrasHTML(p, g)
	return writePage(w, p)
}

// scanPage is the page of a scan: totals, timeline, families, findings, inputs.
func scanPage(s *Scan, title string) *htmlPage {
	rep, sm := s.Ledger, s.Ledger.Summary
	var lines int
	var bytes int64
	for _, in := range s.Inputs {
		lines += in.Lines
		bytes += in.Bytes
	}
	p := &htmlPage{Title: title,
		Headline: fmt.Sprintf("%s, %s, %s", plural(len(s.Inputs), "input", "inputs"), plural(lines, "line", "lines"), humanBytes(bytes))}
	p.Totals = []htmlTotal{
		{Label: "compilations", Value: fmt.Sprint(sm.Compilations)},
		{Label: "compile time", Value: dur(sm.CompileTime)},
		{Label: "recompilations", Value: fmt.Sprint(sm.Recompilations), Bad: sm.Recompilations > 0},
		{Label: "after warm-up", Value: fmt.Sprint(sm.AfterWarmup), Bad: sm.AfterWarmup > 0},
		{Label: "time lost after warm-up", Value: dur(sm.LateCompileTime), Bad: sm.LateCompileTime > 0},
		{Label: "cache hits / misses", Value: fmt.Sprintf("%d / %d", sm.CacheHits, sm.CacheMisses)},
		{Label: "executable loads", Value: fmt.Sprintf("%d (%s)", sm.ExecutableLoads, dur(sm.LoadTime))},
	}
	if sm.Retraces > 0 {
		p.Totals = append(p.Totals, htmlTotal{Label: "retraces", Value: fmt.Sprint(sm.Retraces)})
	}
	tl, omitted := timeline(rep)
	p.Timeline, p.Omitted = tl, append(p.Omitted, omitted...)
	if len(rep.Findings) > 0 {
		sec := htmlSection{ID: "findings", Title: "Findings"}
		for i, f := range rep.Findings {
			if i == htmlMaxCards {
				p.Omitted = append(p.Omitted, fmt.Sprintf("%d more findings (the page shows the first %d; the text and JSON formats list them all)",
					len(rep.Findings)-i, htmlMaxCards))
				break
			}
			c := htmlCard{Title: string(f.Kind) + ": " + f.Module, Severity: string(f.Severity), Lines: []string{f.Message}, Advice: f.Advice}
			if f.File != "" {
				c.Lines = append(c.Lines, fmt.Sprintf("%s:%d", f.File, f.Line))
			}
			sec.Cards = append(sec.Cards, c)
		}
		p.Sections = append(p.Sections, sec)
	}
	fams := newTable([]bool{false, true, true, true, true, true, true}, "module family", "requests", "compiled", "hits", "misses", "compile time", "hashes")
	for i, m := range rep.Modules {
		if i == htmlMaxRows {
			p.Omitted = append(p.Omitted, fmt.Sprintf("%d more module families (the table lists %d)", len(rep.Modules)-i, htmlMaxRows))
			break
		}
		name := m.Family
		if m.Eager && m.Compilations > 0 {
			name += " (eager one-op programs)"
		}
		fams.add(m.Recompiled, name, fmt.Sprint(m.CompileRequests), fmt.Sprint(m.Compilations), fmt.Sprint(m.CacheHits),
			fmt.Sprint(m.CacheMisses), dur(m.CompileTime), countString(m.HashCount, len(m.Hashes)))
	}
	if len(fams.Rows) > 0 {
		p.Sections = append(p.Sections, htmlSection{ID: "families", Title: "Module families", Table: fams})
	}
	ins := newTable([]bool{false, true, true, true, true}, "input", "lines", "bytes", "events", "warnings")
	var warns []string
	for _, in := range s.Inputs {
		ins.add(in.ReadError != "", in.Path, fmt.Sprint(in.Lines), humanBytes(in.Bytes), fmt.Sprint(in.Events), fmt.Sprint(in.WarningCount))
		for _, w := range in.Warnings {
			warns = append(warns, fmt.Sprintf("%s:%d: %s", in.Path, w.Line, w.Message))
		}
	}
	p.Sections = append(p.Sections, htmlSection{ID: "inputs", Title: "Inputs", Table: ins, Items: warns})
	return p
}

// timeline draws one row per module family (those that cost most), with each compilation as a
// bar as long as it took (red after warm-up), each cache hit as a green tick, and a last row of
// executable loads. The axis is time when the log has clocks, else the log's line numbers.
func timeline(rep *ledger.Report) (template.HTML, []string) {
	mods := append([]*ledger.Module(nil), rep.Modules...)
	sort.SliceStable(mods, func(i, j int) bool { return mods[i].CompileTime > mods[j].CompileTime })
	var omitted []string
	if len(mods) > htmlMaxFamilies {
		omitted = append(omitted, fmt.Sprintf("the timeline draws the %d module families that took longest to compile of %d", htmlMaxFamilies, len(mods)))
		mods = mods[:htmlMaxFamilies]
	}
	ax := newTimeAxis(mods)
	marks, notes := timelineMarks(rep, mods, ax)
	omitted = append(omitted, notes...)
	if len(marks) == 0 {
		return "", omitted
	}
	return drawTimeline(marks, mods, len(rep.Loads) > 0, ax), omitted
}

// timeAxis places a log line on the timeline: by its clock when every compilation has one, all
// with a date or all without (a time of day cannot be placed among dated times), else by its
// position in the logs.
type timeAxis struct {
	useTime, dated bool
	t0             time.Time
}

func newTimeAxis(mods []*ledger.Module) timeAxis {
	ax := timeAxis{useTime: true}
	first := true
	for _, m := range mods {
		for _, u := range m.Units {
			switch {
			case u.Begin.IsZero() || (!first && u.DateKnown != ax.dated):
				ax.useTime = false
			case first || u.Begin.Before(ax.t0):
				ax.t0 = u.Begin
			}
			if first {
				ax.dated, first = u.DateKnown, false
			}
		}
	}
	return ax
}

// places says whether a time can be placed on the axis.
func (ax timeAxis) places(t time.Time, dated bool) bool {
	return !ax.useTime || (!t.IsZero() && dated == ax.dated)
}

func (ax timeAxis) pos(t time.Time, line, input int) float64 {
	if ax.useTime {
		return t.Sub(ax.t0).Seconds()
	}
	return float64(input*1_000_000 + line)
}

// length is how long a bar of duration d is on the axis: nothing when the axis is lines.
func (ax timeAxis) length(d time.Duration) float64 {
	if ax.useTime {
		return d.Seconds()
	}
	return 0
}

type timelineMark struct {
	at, len float64
	kind    string // compile, late, hit, load, lateload
	title   string
	row     int
}

// timelineMarks lists the bars and ticks of the families' units and of the executable loads
// (on the last row), and notes what it left out.
func timelineMarks(rep *ledger.Report, mods []*ledger.Module, ax timeAxis) ([]timelineMark, []string) {
	var marks []timelineMark
	var notes []string
	truncated := false
	for row, m := range mods {
		for _, u := range m.Units {
			k := "hit"
			if u.Compiled {
				k = "compile"
				if u.AfterWarmup {
					k = "late"
				}
			}
			l := 0.0
			if u.Compiled {
				l = ax.length(u.Duration)
			}
			marks = append(marks, timelineMark{at: ax.pos(u.Begin, u.Line, u.Input), len: l, kind: k, row: row,
				title: fmt.Sprintf("%s %s:%d %s", k, u.File, u.Line, dur(u.Duration))})
		}
		truncated = truncated || len(m.Units) == ledger.MaxUnits
	}
	if truncated {
		notes = append(notes, fmt.Sprintf("the timeline draws the first %d units of each family", ledger.MaxUnits))
	}
	undrawn := 0
	for _, ld := range rep.Loads {
		if !ax.places(ld.Begin, ld.DateKnown) {
			undrawn++
			continue
		}
		k := "load"
		if ld.AfterWarmup {
			k = "lateload"
		}
		marks = append(marks, timelineMark{at: ax.pos(ld.Begin, ld.Line, ld.Input), len: ax.length(ld.Duration), kind: k, row: len(mods),
			title: fmt.Sprintf("load %s:%d %s", ld.File, ld.Line, dur(ld.Duration))})
	}
	if undrawn > 0 {
		notes = append(notes, fmt.Sprintf("the timeline leaves out %d of the %d executable load(s) listed: their log lines have no clock time comparable with the compilations' (a time of day without a date)", undrawn, len(rep.Loads)))
	}
	return marks, notes
}

// drawTimeline writes the SVG of the marks.
func drawTimeline(marks []timelineMark, mods []*ledger.Module, loadsRow bool, ax timeAxis) template.HTML {
	lo, hi := marks[0].at, marks[0].at+marks[0].len
	for _, mk := range marks {
		lo, hi = min(lo, mk.at), max(hi, mk.at+mk.len)
	}
	if hi <= lo {
		hi = lo + 1
	}
	const left, width, rowH = 260.0, 900.0, 20.0
	rows := len(mods)
	if loadsRow {
		rows++
	}
	height := float64(rows)*rowH + 30
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="timeline of compilations" width="100%%" viewBox="0 0 %.0f %.0f">`,
		left+width+20, height)
	for row, m := range mods {
		y := float64(row)*rowH + 14
		fmt.Fprintf(&b, `<text x="4" y="%.0f">%s</text>`, y, html.EscapeString(shorten(m.Family, 40)))
		fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#eceef2"/>`, left, y-4, left+width, y-4)
	}
	if loadsRow {
		fmt.Fprintf(&b, `<text x="4" y="%.0f">executable loads</text>`, float64(len(mods))*rowH+14)
	}
	colors := map[string]string{"compile": "#2e86c1", "late": "#c0392b", "hit": "#1f8a4c", "load": "#8a94a6", "lateload": "#d68910"}
	for _, mk := range marks {
		x := left + (mk.at-lo)/(hi-lo)*width
		w := max(mk.len/(hi-lo)*width, 2)
		y := float64(mk.row)*rowH + 4
		if mk.kind == "hit" {
			fmt.Fprintf(&b, `<rect class="hit" x="%.1f" y="%.0f" width="3" height="14" fill="%s"><title>%s</title></rect>`, x, y, colors[mk.kind], html.EscapeString(mk.title))
			continue
		}
		fmt.Fprintf(&b, `<rect class="%s" x="%.1f" y="%.0f" width="%.1f" height="14" fill="%s"><title>%s</title></rect>`, mk.kind, x, y, w, colors[mk.kind], html.EscapeString(mk.title))
	}
	axis := fmt.Sprintf("log lines %.0f – %.0f", lo, hi)
	if ax.useTime {
		axis = fmt.Sprintf("0 – %s from the first compilation", dur(time.Duration((hi-lo)*float64(time.Second))))
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f">%s · blue: compilation, red: compiled after warm-up, green: cache hit, grey: executable load</text></svg>`,
		left, height-6, html.EscapeString(axis))
	return template.HTML(b.String())
}

func (hr htmlRenderer) diff(w io.Writer, d *Diff) error {
	same, differ := d.Counts()
	p := &htmlPage{Title: "recomp " + d.command(), Meta: hr.meta,
		Headline: fmt.Sprintf("%s compared: %d differ, %d identical", plural(len(d.Pairs), "pair", "pairs"), differ, same)}
	p.Verdict, p.Class = "IDENTICAL", "ok"
	if differ > 0 || len(d.UnpairedA)+len(d.UnpairedB) > 0 {
		p.Verdict, p.Class = "DIFFER", "bad"
	}
	if len(d.Problems) > 0 {
		p.Verdict, p.Class = "INCOMPLETE", "warn"
	}
	p.Totals = []htmlTotal{{Label: "pairs compared", Value: fmt.Sprint(len(d.Pairs))}, {Label: "differ", Value: fmt.Sprint(differ), Bad: differ > 0},
		{Label: "identical", Value: fmt.Sprint(same)}, {Label: "unpaired", Value: fmt.Sprint(len(d.UnpairedA) + len(d.UnpairedB))},
		{Label: "unreadable", Value: fmt.Sprint(len(d.Problems)), Bad: len(d.Problems) > 0}}
	if len(d.Families) > 0 {
		t := newTable([]bool{false, true, true, false}, "program", "dumps", "log compilations", "log hashes")
		for _, f := range d.Families {
			t.add(len(f.Files) > 1, f.Family, fmt.Sprint(len(f.Files)), fmt.Sprint(f.LogCompilations), joinOr(f.LogHashes, "-"))
		}
		p.Sections = append(p.Sections, htmlSection{ID: "families", Title: "Programs in the dump", Table: t})
	}
	sec := htmlSection{ID: "pairs", Title: "Compared pairs"}
	shown := 0
	for _, pr := range d.Pairs {
		if pr.Result.Identical && differ > 0 {
			continue // the identical pairs are counted above
		}
		if shown == htmlMaxCards {
			p.Omitted = append(p.Omitted, fmt.Sprintf("%d more pairs (the page shows %d; --format json lists them all)", len(d.Pairs)-shown, htmlMaxCards))
			break
		}
		shown++
		sec.Cards = append(sec.Cards, pairCard(pr))
	}
	p.Sections = append(p.Sections, sec)
	var items []string
	for _, f := range d.UnpairedA {
		items = append(items, "only in A: "+f)
	}
	for _, f := range d.UnpairedB {
		items = append(items, "only in B: "+f)
	}
	for _, pr := range d.Problems {
		items = append(items, "could not be read: "+pr.String())
	}
	items = append(items, d.Warnings...)
	if len(items) > 0 {
		p.Sections = append(p.Sections, htmlSection{ID: "other", Title: "Unpaired and unreadable", Items: items})
	}
	return writePage(w, p)
}

func pairCard(pr *DiffPair) htmlCard {
	r := pr.Result
	c := htmlCard{Title: pr.Label(), Severity: "error", Lines: []string{pr.A.Path + " → " + pr.B.Path}, Notes: r.Notes}
	if r.Identical {
		c.Severity = "ok"
	}
	if pr.HashA != "" || pr.HashB != "" {
		c.Lines = append(c.Lines, "log hashes: "+nonEmpty(pr.HashA, "?")+" → "+nonEmpty(pr.HashB, "?"))
	}
	for _, cs := range r.Causes {
		c.Causes = append(c.Causes, htmlCause{Kind: string(cs.Kind), Summary: cs.Summary, Evidence: cs.Evidence, Advice: cs.Advice})
	}
	if !r.Identical {
		c.Lines = append(c.Lines, fmt.Sprintf("%d change(s); %d instructions matched, %d added, %d removed", r.ChangeCount, r.Matched, r.Added, r.Removed))
	}
	if pr.Text != nil {
		c.Diff = sideBySide(pr.Text.Lines)
		c.Notes = append(c.Notes, pr.Text.Notes...)
	}
	return c
}

// sideBySide lays out a unified diff in two columns: a run of removed lines beside the run of
// added lines that follows it, with the characters that differ marked.
func sideBySide(lines []diff.DiffLine) []htmlDiffRow {
	var rows []htmlDiffRow
	esc := func(s string) template.HTML { return template.HTML(html.EscapeString(s)) }
	for i := 0; i < len(lines); {
		l := lines[i]
		switch l.Op {
		case 'c':
			rows = append(rows, htmlDiffRow{Kind: "comp", Left: esc(l.Text), Right: esc("")})
			i++
		case '@':
			rows = append(rows, htmlDiffRow{Kind: "skip", Left: esc(l.Text), Right: esc(l.Text)})
			i++
		case ' ':
			rows = append(rows, htmlDiffRow{Kind: "same", Left: esc(l.Text), Right: esc(l.Text)})
			i++
		default:
			var del, ins []string
			for i < len(lines) && lines[i].Op == '-' {
				del = append(del, lines[i].Text)
				i++
			}
			for i < len(lines) && lines[i].Op == '+' {
				ins = append(ins, lines[i].Text)
				i++
			}
			for k := 0; k < max(len(del), len(ins)); k++ {
				switch {
				case k < len(del) && k < len(ins):
					a, b := marked(del[k], ins[k])
					rows = append(rows, htmlDiffRow{Kind: "changed", Left: a, Right: b})
				case k < len(del):
					rows = append(rows, htmlDiffRow{Kind: "removed", Left: esc(del[k]), Right: esc("")})
				default:
					rows = append(rows, htmlDiffRow{Kind: "added", Left: esc(""), Right: esc(ins[k])})
				}
			}
		}
	}
	return rows
}

// marked returns two versions of a line with what differs between them in <mark>: a changed
// shape or constant stands out.
func marked(a, b string) (template.HTML, template.HTML) {
	if len(a) > htmlMaxDiffLine || len(b) > htmlMaxDiffLine {
		return template.HTML(html.EscapeString(a)), template.HTML(html.EscapeString(b))
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0
	ds := dmp.DiffCleanupSemantic(dmp.DiffMain(a, b, false))
	var x, y strings.Builder
	for _, d := range ds {
		t := html.EscapeString(d.Text)
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			x.WriteString(t)
			y.WriteString(t)
		case diffmatchpatch.DiffDelete:
			x.WriteString("<mark>" + t + "</mark>")
		case diffmatchpatch.DiffInsert:
			y.WriteString("<mark>" + t + "</mark>")
		}
	}
	return template.HTML(x.String()), template.HTML(y.String())
}
