package report

import (
	"fmt"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/ledger"
)

// Document is a report laid out for people, in no format yet: what it is, its status and
// headline, its totals, a timeline, titled sections of tables, cards and items, and what was
// left out. Each report model is built into one Document (build); the text, Markdown and HTML
// formats lay out the same Document, so a table or a card is made once for all of them. JSON
// is not made from it: it projects the models themselves.
type Document struct {
	Title    string
	Status   string // PASS, FAIL, ERROR, IDENTICAL, DIFFER, INCOMPLETE; "" when none
	Tone     string // the status's colour: ok, bad, warn
	Headline string
	Totals   []Total
	// Timeline is the ledger whose compilations, cache hits and loads HTML draws (nil: none).
	Timeline *ledger.Report
	Sections []Section
	Omitted  []string
}

// Total is one figure of the totals.
type Total struct {
	Label, Value string
	Bad          bool
}

// Section is one titled part of a document: a table, cards or a list.
type Section struct {
	ID, Title string
	Table     *Table
	Cards     []Card
	Items     []string
	Note      string
}

// Table is a table with typed columns: a numeric column is right-aligned and sorts as numbers.
type Table struct {
	Head []Cell
	Rows []Row
}

// Row is one row of a table.
type Row struct {
	Cells []Cell
	Bad   bool // the row is a problem
}

// Cell is one cell of a table.
type Cell struct {
	Text string
	Num  bool
}

// newTable makes a table whose columns are numeric where numeric says so.
func newTable(numeric []bool, head ...string) *Table {
	t := &Table{}
	for i, h := range head {
		t.Head = append(t.Head, Cell{Text: h, Num: i < len(numeric) && numeric[i]})
	}
	return t
}

func (t *Table) add(bad bool, cells ...string) {
	r := Row{Bad: bad}
	for i, c := range cells {
		r.Cells = append(r.Cells, Cell{Text: c, Num: i < len(t.Head) && t.Head[i].Num})
	}
	t.Rows = append(t.Rows, r)
}

// Card is one thing found: a recompiled program, a finding, a gate failure.
type Card struct {
	Title    string
	Severity string // error, warning, info, ok
	Lines    []string
	Causes   []CardCause
	Advice   string
	Notes    []string
	// Diff is the text diff of a compared pair, when it was asked for.
	Diff *diff.TextDiff
}

// CardCause is one cause on a card, with its evidence and advice.
type CardCause struct {
	Kind, Summary string
	Evidence      []string
	Advice        string
}

// Limits of a document, so that a report of a huge log or diff opens in seconds.
const (
	maxCards = 50  // cards of a section
	maxRows  = 500 // rows of a table
)

// HTMLMaxCards is how many compared pairs an HTML page shows (the first that differ).
const HTMLMaxCards = maxCards

// statusTone is the colour of a gate's status.
var statusTone = map[string]string{"PASS": "ok", "FAIL": "bad", "ERROR": "warn"}

func scanDoc(s *Scan, title string) *Document {
	rep, sm := s.Ledger, s.Ledger.Summary
	var lines int
	var bytes int64
	for _, in := range s.Inputs {
		lines += in.Lines
		bytes += in.Bytes
	}
	p := &Document{Title: title, Timeline: rep,
		Headline: fmt.Sprintf("%s, %s, %s", plural(len(s.Inputs), "input", "inputs"), plural(lines, "line", "lines"), humanBytes(bytes))}
	p.Totals = []Total{
		{Label: "compilations", Value: fmt.Sprint(sm.Compilations)},
		{Label: "compile time", Value: dur(sm.CompileTime)},
		{Label: "recompilations", Value: fmt.Sprint(sm.Recompilations), Bad: sm.Recompilations > 0},
		{Label: "after warm-up", Value: fmt.Sprint(sm.AfterWarmup), Bad: sm.AfterWarmup > 0},
		{Label: "time lost after warm-up", Value: dur(sm.LateCompileTime), Bad: sm.LateCompileTime > 0},
		{Label: "cache hits / misses", Value: fmt.Sprintf("%d / %d", sm.CacheHits, sm.CacheMisses)},
		{Label: "executable loads", Value: fmt.Sprintf("%d (%s)", sm.ExecutableLoads, dur(sm.LoadTime))},
	}
	if sm.Retraces > 0 {
		p.Totals = append(p.Totals, Total{Label: "retraces", Value: fmt.Sprint(sm.Retraces)})
	}
	if len(rep.Findings) > 0 {
		sec := Section{ID: "findings", Title: "Findings"}
		for i, f := range rep.Findings {
			if i == maxCards {
				p.Omitted = append(p.Omitted, fmt.Sprintf("%d more findings (the page shows the first %d; the text and JSON formats list them all)",
					len(rep.Findings)-i, maxCards))
				break
			}
			c := Card{Title: string(f.Kind) + ": " + f.Module, Severity: string(f.Severity), Lines: []string{f.Message}, Advice: f.Advice}
			if f.File != "" {
				c.Lines = append(c.Lines, fmt.Sprintf("%s:%d", f.File, f.Line))
			}
			sec.Cards = append(sec.Cards, c)
		}
		p.Sections = append(p.Sections, sec)
	}
	fams := newTable([]bool{false, true, true, true, true, true, true}, "module family", "requests", "compiled", "hits", "misses", "compile time", "hashes")
	for i, m := range rep.Modules {
		if i == maxRows {
			p.Omitted = append(p.Omitted, fmt.Sprintf("%d more module families (the table lists %d)", len(rep.Modules)-i, maxRows))
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
		p.Sections = append(p.Sections, Section{ID: "families", Title: "Module families", Table: fams})
	}
	ins := newTable([]bool{false, true, true, true, true}, "input", "lines", "bytes", "events", "warnings")
	var warns []string
	for _, in := range s.Inputs {
		ins.add(in.ReadError != "", in.Path, fmt.Sprint(in.Lines), humanBytes(in.Bytes), fmt.Sprint(in.Events), fmt.Sprint(in.WarningCount))
		for _, w := range in.Warnings {
			warns = append(warns, fmt.Sprintf("%s:%d: %s", in.Path, w.Line, w.Message))
		}
	}
	p.Sections = append(p.Sections, Section{ID: "inputs", Title: "Inputs", Table: ins, Items: warns})
	return p
}

func guardDoc(g *Guard) *Document {
	p := scanDoc(g.Scan, "recomp guard")
	gr := g.Gate
	p.Status = gateStatus(gr)
	p.Tone = statusTone[p.Status]
	p.Headline = gr.Reason
	sec := Section{ID: "gate", Title: "Gate"}
	for _, pr := range gr.Problems {
		sec.Cards = append(sec.Cards, Card{Title: "no verdict: the evidence is incomplete", Severity: "warning", Lines: []string{pr}})
	}
	for _, f := range gr.Failures {
		c := Card{Title: fmt.Sprintf("%s:%d", f.File, f.Line), Severity: "error", Lines: []string{failureText(f)}}
		if gr.Passed {
			c.Severity = "info"
		}
		sec.Cards = append(sec.Cards, c)
	}
	if n := gr.Compilations + gr.LoadFailures; n > len(gr.Failures) {
		sec.Note = fmt.Sprintf("%d failures, the first %d shown", n, len(gr.Failures))
	}
	if len(sec.Cards) == 0 {
		sec.Items = []string{gr.Reason}
	}
	p.Sections = append([]Section{sec}, p.Sections...)
	return p
}

func diffDoc(d *Diff) *Document {
	same, differ := d.Counts()
	p := &Document{Title: "recomp " + d.command(),
		Headline: fmt.Sprintf("%s compared: %d differ, %d identical", plural(len(d.Pairs), "pair", "pairs"), differ, same)}
	p.Status, p.Tone = "IDENTICAL", "ok"
	if differ > 0 || len(d.UnpairedA)+len(d.UnpairedB) > 0 {
		p.Status, p.Tone = "DIFFER", "bad"
	}
	if len(d.Problems) > 0 {
		p.Status, p.Tone = "INCOMPLETE", "warn"
	}
	p.Totals = []Total{{Label: "pairs compared", Value: fmt.Sprint(len(d.Pairs))}, {Label: "differ", Value: fmt.Sprint(differ), Bad: differ > 0},
		{Label: "identical", Value: fmt.Sprint(same)}, {Label: "unpaired", Value: fmt.Sprint(len(d.UnpairedA) + len(d.UnpairedB))},
		{Label: "unreadable", Value: fmt.Sprint(len(d.Problems)), Bad: len(d.Problems) > 0}}
	if len(d.Families) > 0 {
		t := newTable([]bool{false, true, true, false}, "program", "dumps", "log compilations", "log hashes")
		for _, f := range d.Families {
			t.add(len(f.Files) > 1, f.Family, fmt.Sprint(len(f.Files)), fmt.Sprint(f.LogCompilations), joinOr(f.LogHashes, "-"))
		}
		p.Sections = append(p.Sections, Section{ID: "families", Title: "Programs in the dump", Table: t})
	}
	sec := Section{ID: "pairs", Title: "Compared pairs"}
	shown := 0
	for _, pr := range d.Pairs {
		if pr.Result.Identical && differ > 0 {
			continue // the identical pairs are counted above
		}
		if shown == maxCards {
			p.Omitted = append(p.Omitted, fmt.Sprintf("%d more pairs (the page shows %d; --format json lists them all)", len(d.Pairs)-shown, maxCards))
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
		p.Sections = append(p.Sections, Section{ID: "other", Title: "Unpaired and unreadable", Items: items})
	}
	return p
}

func pairCard(pr *DiffPair) Card {
	r := pr.Result
	c := Card{Title: pr.Label(), Severity: "error", Lines: []string{pr.A.Path + " → " + pr.B.Path}, Notes: r.Notes}
	if r.Identical {
		c.Severity = "ok"
	}
	if pr.HashA != "" || pr.HashB != "" {
		c.Lines = append(c.Lines, "log hashes: "+nonEmpty(pr.HashA, "?")+" → "+nonEmpty(pr.HashB, "?"))
	}
	for _, cs := range r.Causes {
		c.Causes = append(c.Causes, CardCause{Kind: string(cs.Kind), Summary: cs.Summary, Evidence: cs.Evidence, Advice: cs.Advice})
	}
	if !r.Identical {
		c.Lines = append(c.Lines, fmt.Sprintf("%d change(s); %d instructions matched, %d added, %d removed", r.ChangeCount, r.Matched, r.Added, r.Removed))
	}
	if pr.Text != nil {
		c.Diff = pr.Text
		c.Notes = append(c.Notes, pr.Text.Notes...)
	}
	return c
}

func runDoc(r *Run) *Document {
	p := scanDoc(r.Scan, "recomp run")
	p.Headline = runHeadline(r) + " · " + r.Folder
	if r.Gate != nil {
		p.Status = gateStatus(r.Gate)
		p.Tone = statusTone[p.Status]
	}
	info := Section{ID: "run", Title: "The run", Items: append([]string{"run folder " + r.Folder}, runFacts(r)...)}
	for _, s := range r.Manifest.Settings {
		item := s.Name + "=" + s.Value
		if s.Kept {
			item += " (yours, kept)"
		}
		if s.Effect != "" {
			item += " — " + s.Effect
		}
		info.Items = append(info.Items, item)
	}
	sections := []Section{info}
	if r.Explain != nil {
		sec := Section{ID: "causes", Title: "Why programs were compiled again"}
		for i, pr := range r.Explain.Pairs {
			if i == maxCards {
				p.Omitted = append(p.Omitted, fmt.Sprintf("%d more compared pairs", len(r.Explain.Pairs)-i))
				break
			}
			if !pr.Result.Identical || len(r.Explain.Pairs) == 1 {
				sec.Cards = append(sec.Cards, pairCard(pr))
			}
		}
		if len(sec.Cards) > 0 {
			sections = append(sections, sec)
		}
	}
	p.Sections = append(sections, p.Sections...)
	return p
}
