package report

import (
	"fmt"
	"html"
	"html/template"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
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

// Limits of the HTML page beyond the document's.
const (
	htmlMaxFamilies = 30   // rows of the timeline
	htmlMaxDiffLine = 400  // characters of a diff line compared for highlighting
	htmlMaxCardRows = 400  // rows of one side-by-side diff
	htmlMaxDiffRows = 3000 // rows of all the side-by-side diffs of a page
)

// Meta says where a report came from: recomp's version and the command line.
type Meta struct {
	Version string
	Command string
}

// htmlPage is a document as the page template shows it: the timeline drawn, the notes of what
// the page left out first.
type htmlPage struct {
	*Document
	Timeline template.HTML
	Omitted  []string
	Meta     Meta
}

// htmlDiffRow is one row of a side-by-side diff; Left and Right are escaped HTML with the
// changed parts marked.
type htmlDiffRow struct {
	Kind        string // same, changed, added, removed, skip, comp
	Left, Right template.HTML
}

// pageTemplate is the page's template, parsed on first use rather than when the binary starts
// (a third of a millisecond of every run of it).
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{"sideBySide": sideBySide}).Parse(pageSource))
})

// pageSource is the page's template text.
const pageSource = `<!DOCTYPE html>
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
.card h3{margin:0 0 6px;font-size:14px;word-break:break-all}.card p{margin:3px 0;overflow-wrap:anywhere}
.cause{margin:6px 0}.cause .kind{display:inline-block;background:#e8ecf4;border-radius:3px;padding:0 6px;font-weight:600;margin-right:6px}
.advice{color:#3b4a63;font-style:italic}
ul.ev{margin:4px 0 4px 18px;padding:0}ul.ev li{font-family:ui-monospace,monospace;font-size:12px;word-break:break-all}
table.sbs{table-layout:fixed;margin-top:8px}table.sbs td{font-family:ui-monospace,monospace;font-size:12px;white-space:pre-wrap;word-break:break-all;width:50%;border:none;padding:1px 6px}
tr.removed td:first-child,tr.changed td:first-child{background:#fdecea}tr.added td:last-child,tr.changed td:last-child{background:#e9f7ef}
tr.skip td{color:#8a94a6;text-align:center;background:#f6f7f9}tr.comp td{font-weight:700;background:#eef1f7}
mark{background:#f5c16c;padding:0}
.omitted{color:#6b7385;font-size:13px}
header p.cost{color:#fff;font-weight:600;margin-top:6px}
section.answer{border-left:5px solid #1d2433}section.answer ul{list-style:none;margin:0;padding:0}section.answer li{margin:0 0 8px;overflow-wrap:anywhere}
.mark{display:inline-block;width:1.2em;font-weight:700}li.badline .mark{color:#c0392b}li.warnline .mark{color:#d68910}li.okline .mark{color:#1f8a4c}
.action{display:inline-block;margin-left:1.2em;color:#3b4a63}
footer{color:#6b7385;font-size:12px;padding:0 28px 24px}
svg text{font:11px system-ui,sans-serif;fill:#1d2433}
</style>
</head>
<body>
<header><h1>{{if .Status}}<span class="verdict {{.Tone}}">{{.Status}}</span>{{end}}{{.Title}}</h1><p>{{.Headline}}</p>{{if .Cost}}<p class="cost">{{.Cost}}</p>{{end}}</header>
<main>
{{if .Answer}}<section id="answer" class="answer"><h2>The answer</h2><ul>{{range .Answer}}<li class="{{.Tone}}line"><span class="mark">{{if eq .Tone "bad"}}✗{{else if eq .Tone "warn"}}!{{else}}✓{{end}}</span> {{.Text}}{{if .Action}}<br><span class="action">→ {{.Action}}</span>{{end}}</li>{{end}}</ul></section>{{end}}
<ul class="totals">{{range .Totals}}<li{{if .Bad}} class="badv"{{end}}><b>{{.Value}}</b>{{.Label}}</li>{{end}}</ul>
{{range .Sections}}{{if .Timeline}}{{with $.Timeline}}<section id="timeline"><h2>Timeline</h2>{{.}}</section>{{end}}{{else}}<section id="{{.ID}}"><h2>{{.Title}}</h2>
{{if .Note}}<p class="omitted">{{.Note}}</p>{{end}}
{{range .Cards}}<div class="card {{.Severity}}"><h3>{{.Title}}</h3>
{{range .Lines}}<p class="mono">{{.}}</p>{{end}}
{{range .Causes}}<div class="cause"><span class="kind">{{.Kind}}</span>{{.Summary}}
{{if .Evidence}}<ul class="ev">{{range .Evidence}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Advice}}<p class="advice">{{.Advice}}</p>{{end}}</div>{{end}}
{{if .Advice}}<p class="advice">{{.Advice}}</p>{{end}}
{{range .Notes}}<p class="omitted">{{.}}</p>{{end}}
{{if .Same}}<details class="same"><summary>{{len .Same}} more with the same cause (evidence and advice as above)</summary><ul class="ev">{{range .Same}}<li>{{.}}</li>{{end}}</ul></details>{{end}}
{{with sideBySide .Diff}}<details><summary>side-by-side diff</summary><table class="sbs"><tbody>
{{range .}}<tr class="{{.Kind}}"><td>{{.Left}}</td><td>{{.Right}}</td></tr>
{{end}}</tbody></table></details>{{end}}
</div>{{end}}
{{with .Table}}<table class="sortable"><thead><tr>{{range .Head}}<th{{if .Num}} class="n"{{end}}>{{.Text}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr{{if .Bad}} class="badrow"{{end}}>{{range .Cells}}<td{{if .Num}} class="n"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody></table>{{end}}
{{if .Items}}<ul>{{range .Items}}<li class="mono">{{.}}</li>{{end}}</ul>{{end}}
</section>{{end}}
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
`

// writePage lays out a document as the page.
func writePage(w io.Writer, d *Document, meta Meta) error {
	p := &htmlPage{Document: showControls(d), Meta: meta}
	for _, sec := range d.Sections {
		if sec.Timeline != nil {
			p.Timeline, p.Omitted = timeline(sec.Timeline)
		}
	}
	p.Omitted = append(p.Omitted, p.Document.Omitted...)
	p.Meta.Version, p.Meta.Command = visible(meta.Version), visible(meta.Command)
	budget := htmlMaxDiffRows
	t, err := pageTemplate().Clone()
	if err != nil {
		return err
	}
	t.Funcs(template.FuncMap{"sideBySide": func(td *diff.TextDiff) []htmlDiffRow { return capRows(sideBySide(td), &budget) }})
	return t.Execute(w, p)
}

// escHTML escapes text for HTML that the page builds itself (the timeline, the diffs), with
// its control characters shown.
func escHTML(s string) string { return html.EscapeString(visible(s)) }

// showControls returns a copy of the document with the control characters of every text shown
// with visible: the template escapes markup, but a newline or an escape sequence from a file
// name or a log would pass it. (The timeline and the diffs are HTML built with escHTML.)
func showControls(d *Document) *Document {
	c := *d
	p := &c
	v := func(ss ...*string) {
		for _, s := range ss {
			*s = visible(*s)
		}
	}
	list := func(xs *[]string) { // a copy: the lists may be the model's own
		*xs = slices.Clone(*xs)
		for i := range *xs {
			(*xs)[i] = visible((*xs)[i])
		}
	}
	v(&p.Title, &p.Status, &p.Tone, &p.Headline, &p.Cost)
	list(&p.Omitted)
	p.Answer = slices.Clone(p.Answer)
	for i := range p.Answer {
		v(&p.Answer[i].Tone, &p.Answer[i].Text, &p.Answer[i].Action)
	}
	p.Totals = slices.Clone(p.Totals)
	for i := range p.Totals {
		v(&p.Totals[i].Label, &p.Totals[i].Value)
	}
	p.Sections = slices.Clone(p.Sections)
	for i := range p.Sections {
		sec := &p.Sections[i]
		v(&sec.ID, &sec.Title, &sec.Note)
		list(&sec.Items)
		if sec.Table != nil {
			t := &Table{Head: slices.Clone(sec.Table.Head), Rows: slices.Clone(sec.Table.Rows)}
			sec.Table = t
			for j := range t.Head {
				v(&t.Head[j].Text)
			}
			for j := range t.Rows {
				r := &t.Rows[j]
				r.Cells = slices.Clone(r.Cells)
				for k := range r.Cells {
					v(&r.Cells[k].Text)
				}
			}
		}
		sec.Cards = slices.Clone(sec.Cards)
		for j := range sec.Cards {
			c := &sec.Cards[j]
			v(&c.Title, &c.Severity, &c.Advice)
			list(&c.Lines)
			list(&c.Notes)
			list(&c.Same)
			c.Causes = slices.Clone(c.Causes)
			for k := range c.Causes {
				cs := &c.Causes[k]
				v(&cs.Kind, &cs.Summary, &cs.Advice)
				list(&cs.Evidence)
			}
		}
	}
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
		fmt.Fprintf(&b, `<text x="4" y="%.0f">%s</text>`, y, escHTML(shorten(m.Family, 40)))
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
			fmt.Fprintf(&b, `<rect class="hit" x="%.1f" y="%.0f" width="3" height="14" fill="%s"><title>%s</title></rect>`, x, y, colors[mk.kind], escHTML(mk.title))
			continue
		}
		fmt.Fprintf(&b, `<rect class="%s" x="%.1f" y="%.0f" width="%.1f" height="14" fill="%s"><title>%s</title></rect>`, mk.kind, x, y, w, colors[mk.kind], escHTML(mk.title))
	}
	axis := fmt.Sprintf("log lines %.0f – %.0f", lo, hi)
	if ax.useTime {
		axis = fmt.Sprintf("0 – %s from the first compilation", durSeconds(hi-lo))
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f">%s · blue: compilation, red: compiled after warm-up, green: cache hit, grey: executable load</text></svg>`,
		left, height-6, escHTML(axis))
	return template.HTML(b.String())
}

// capRows keeps a diff's rows within its card's cap and what is left of the page's budget, and
// says in a last row how many it left out.
func capRows(rows []htmlDiffRow, budget *int) []htmlDiffRow {
	n := min(len(rows), htmlMaxCardRows, max(*budget, 0))
	*budget -= n
	if n == len(rows) {
		return rows
	}
	note := template.HTML(escHTML(fmt.Sprintf("… %d more lines of this diff left out of the page (recomp explain --text prints them all)", len(rows)-n)))
	return append(rows[:n:n], htmlDiffRow{Kind: "skip", Left: note, Right: note})
}

// sideBySide lays out a unified diff in two columns: a run of removed lines beside the run of
// added lines that follows it, with the characters that differ marked.
func sideBySide(td *diff.TextDiff) []htmlDiffRow {
	if td == nil {
		return nil
	}
	lines := td.Lines
	var rows []htmlDiffRow
	esc := func(s string) template.HTML { return template.HTML(escHTML(s)) }
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
		return template.HTML(escHTML(a)), template.HTML(escHTML(b))
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0
	ds := dmp.DiffCleanupSemantic(dmp.DiffMain(a, b, false))
	var x, y strings.Builder
	for _, d := range ds {
		t := escHTML(d.Text)
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
