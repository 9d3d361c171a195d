package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/recomp/recomp/across"
	"github.com/recomp/recomp/cache"
	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/internal/textutil"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/verdict"
)

// Document is a report laid out for people, in no format yet. It leads with the answer: its
// status and headline, what compiling cost (Cost), and one line per program that compiled
// again (Answer); then its totals and titled sections of tables, cards and items, and what was
// left out. Each report model is built into one Document (document); the text, Markdown and
// HTML formats lay out the same Document, so a table or a card is made once for all of them.
// JSON is not made from it: it projects the models themselves.
type Document struct {
	Title    string
	Status   string // PASS, FAIL, ERROR, IDENTICAL, DIFFER, INCOMPLETE; "" when none
	Tone     string // the status's colour: ok, bad, warn
	Headline string
	// Cost says in one line how much of the run went to compiling and to compiling again.
	Cost   string
	Answer []Answer
	Totals []Total
	// Sections are the details, in the order a person reads them.
	Sections []Section
	Omitted  []string
}

// Answer is one line of the answer: a program that compiled again (what, how often, the time,
// the causes with old → new and the user's lines) and what to do about it.
type Answer struct {
	Tone   string // bad, warn, ok
	Text   string
	Action string
}

// Total is one figure of the totals.
type Total struct {
	Label, Value string
	Bad          bool
}

// Section is one titled part of a document: a table, cards, a list or a timeline.
type Section struct {
	ID, Title string
	Note      string
	Table     *Table
	Cards     []Card
	Items     []string
	// Code says the items are commands or paths, shown as code (Markdown: a code span that
	// keeps every backtick), never as prose.
	Code bool
	// Timeline is the ledger whose compilations, cache hits and loads a page draws (the text
	// formats cannot draw it and leave it out).
	Timeline *ledger.Report
	// Detail marks a section the text format leaves out: a terminal's summary has the answer
	// and the tables; Markdown and HTML show everything.
	Detail bool
}

func (s *Section) tableRows() []Row {
	if s.Table == nil {
		return nil
	}
	return s.Table.Rows
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

// Card is one thing found: a recompiled program, a compared pair, a finding, a gate failure.
type Card struct {
	Title    string
	Severity string // error, warning, info, ok
	Lines    []string
	Causes   []CardCause
	Advice   string
	Notes    []string
	// Same are the cards that told the same story (pairs with the same causes and advice),
	// one line each.
	Same []string
	// Diff is the text diff of a compared pair, when it was asked for.
	Diff *diff.TextDiff
}

// CardCause is one cause on a card, with its evidence and advice.
type CardCause struct {
	Kind, Summary string
	Evidence      []string
	Advice        string
}

// Limits of a document, so that a report of a huge log or diff reads in seconds.
const (
	maxCards    = 50  // cards of a section
	maxRows     = 500 // rows of a table
	maxAnswers  = 10  // lines of the answer
	maxEvidence = 3   // evidence lines of one kind shown before the count of the others
)

// HTMLMaxCards is how many compared pairs a report shows (the first that differ).
const HTMLMaxCards = maxCards

// statusTone is the colour of a gate's status.
var statusTone = map[string]string{"PASS": "ok", "FAIL": "bad", "ERROR": "warn"}

// document builds the document of a report.
func document(r Report) *Document {
	switch r := r.(type) {
	case *explain.Scan:
		p := scanDoc(r, "recomp scan", false)
		// One process's log read as several (guard says it as its gate's doubt): said with the
		// answer, not only beside its input, and no all-clear across its parts.
		if len(r.Rotated) > 0 {
			p.Answer = slices.DeleteFunc(p.Answer, func(a Answer) bool { return a.Tone == "ok" })
		}
		for _, msg := range r.Rotated {
			p.Answer = append(p.Answer, Answer{Tone: "warn", Text: msg})
		}
		return p
	case *across.Guard:
		return guardDoc(r)
	case *explain.Diff:
		return diffDoc(r)
	case *Cache:
		return cacheDoc(r)
	case *explain.Run:
		return runDoc(r)
	case *across.RunsDiff:
		return runsDoc(r)
	case *explain.Ranks:
		return ranksDoc(r)
	}
	return &Document{Title: fmt.Sprintf("no document for %T", r)}
}

// scanDoc is the document of what logs say: the answer, the user's lines, the sizes to pad
// to, findings, the timeline, the module families and the inputs.
func scanDoc(s *explain.Scan, title string, dumped bool) *Document {
	rep, sm := s.Ledger, s.Ledger.Summary
	var lines, warnings, traces int
	var bytes, traceBytes int64
	for _, in := range s.Inputs {
		lines += in.Lines
		bytes += in.Bytes
		warnings += in.WarningCount
		for _, t := range in.Traces {
			traces++
			traceBytes += t.Bytes
		}
	}
	p := &Document{Title: title,
		Headline: fmt.Sprintf("%s, %s, %s", plural(len(s.Inputs), "input", "inputs"), plural(lines, "line", "lines"), humanBytes(bytes))}
	if traces > 0 { // read with the logs, joined to them
		p.Headline += fmt.Sprintf(", and %s (%s)", plural(traces, "trace", "traces"), humanBytes(traceBytes))
	}
	if s.SameProcess && len(s.Inputs) > 1 {
		p.Headline += " (one process)"
	}
	p.Totals = scanTotals(sm, s.Verdict)
	p.answer(s.Verdict, sm, rep)
	if verdict.EndedBeforeCompiling(sm, s.Manifest) { // a run folder whose command ended before compiling
		a, _ := verdict.NoEvidenceInRun(s.Manifest)
		p.Answer = []Answer{Answer(a)}
	}
	p.hostReadAnswers(rep.Findings)
	if s.Job != nil {
		p.Answer = append(p.Answer, rankAnswers(s.Job)...)
	}
	p.verdictSections(s.Verdict)
	if s.Job != nil {
		p.Sections = append(p.Sections, ranksSections(s.Job, &p.Omitted)...)
	}
	p.findings(rep.Findings, s.Verdict, dumped)
	p.Sections = append(p.Sections, Section{ID: "timeline", Title: "Timeline", Timeline: rep, Detail: true})
	if fams := familyTable(rep, &p.Omitted); len(fams.Rows) > 0 {
		p.Sections = append(p.Sections, Section{ID: "families", Title: "Module families", Table: fams})
	}
	ins := newTable([]bool{false, true, true, true, true}, "input", "lines", "bytes", "events", "warnings")
	var warns []string
	for _, in := range s.Inputs {
		ins.add(in.ReadError != "", in.Path, fmt.Sprint(in.Lines), humanBytes(in.Bytes), fmt.Sprint(in.Events), fmt.Sprint(in.WarningCount))
		for _, t := range in.Traces { // read with the log, joined to it by compile id
			ins.add(false, "+ "+t.Path+" (its trace)", fmt.Sprint(t.Lines), humanBytes(t.Bytes), fmt.Sprint(t.Events), "-")
		}
		for _, w := range in.Warnings {
			warns = append(warns, fmt.Sprintf("%s:%d: %s", in.Path, w.Line, w.Message))
		}
		if in.WarningCount > len(in.Warnings) {
			warns = append(warns, fmt.Sprintf("%s: %d more warnings not listed", in.Path, in.WarningCount-len(in.Warnings)))
		}
		if in.ReadError != "" {
			warns = append(warns, fmt.Sprintf("%s: %s", in.Path, in.ReadError))
		}
	}
	p.Sections = append(p.Sections, Section{ID: "inputs", Title: "Inputs", Table: ins, Items: warns,
		Detail: len(s.Inputs) == 1 && warnings == 0 && len(warns) == 0})
	return p
}

func scanTotals(sm ledger.Summary, v *verdict.Result) []Total {
	late := sm.LateCompileTime
	if v != nil {
		late = v.Late // with the tracing and lowering, as the cost line counts it
	}
	ts := []Total{
		{Label: "compile requests", Value: fmt.Sprint(sm.CompileRequests)},
		{Label: "compilations", Value: fmt.Sprint(sm.Compilations)},
		{Label: "compile time", Value: dur(sm.CompileTime)},
	}
	if sm.TraceTime+sm.LowerTime > 0 {
		ts = append(ts, Total{Label: "tracing and lowering", Value: dur(sm.TraceTime + sm.LowerTime)})
	}
	ts = append(ts,
		Total{Label: "recompilations", Value: fmt.Sprint(sm.Recompilations), Bad: sm.Recompilations > 0},
		Total{Label: "after warm-up", Value: fmt.Sprint(sm.AfterWarmup), Bad: sm.AfterWarmup > 0},
		Total{Label: "time lost after warm-up", Value: dur(late), Bad: late > 0},
		Total{Label: "cache hits / misses / writes", Value: fmt.Sprintf("%d / %d / %d", sm.CacheHits, sm.CacheMisses, sm.CacheWrites)},
		Total{Label: "executable loads", Value: fmt.Sprintf("%d (%s)", sm.ExecutableLoads, dur(sm.LoadTime))},
	)
	if sm.LoadsAfterWarmup > 0 {
		ts = append(ts, Total{Label: "loads after warm-up", Value: fmt.Sprint(sm.LoadsAfterWarmup), Bad: true})
	}
	if sm.Retraces > 0 {
		ts = append(ts, Total{Label: "retraces", Value: fmt.Sprint(sm.Retraces)})
	}
	if sm.EagerCompilations > 0 {
		ts = append(ts, Total{Label: "eager one-op compilations", Value: fmt.Sprint(sm.EagerCompilations)})
	}
	return ts
}

// familyTable is the one table of module families.
func familyTable(rep *ledger.Report, omitted *[]string) *Table {
	t := newTable([]bool{false, true, true, true, true, true, true}, "module family", "requests", "compiled", "hits", "misses", "compile time", "hashes")
	for i, m := range rep.Modules {
		if i == maxRows {
			*omitted = append(*omitted, fmt.Sprintf("%d more module families (the table lists %d; --format json lists them all)", len(rep.Modules)-i, maxRows))
			break
		}
		name := m.Family
		if m.Eager && m.Compilations > 0 {
			name += " (eager one-op programs)"
		}
		hashes := "-"
		if m.HashCount > 0 {
			hashes = textutil.Count(m.HashCount, len(m.Hashes), ">%d")
		}
		t.add(m.Recompiled, name, fmt.Sprint(m.CompileRequests), fmt.Sprint(m.Compilations), fmt.Sprint(m.CacheHits),
			fmt.Sprint(m.CacheMisses), dur(m.CompileTime), hashes)
	}
	return t
}

// hostReadAnswers adds a line for each of the program's lines that reads a tensor on the host
// every step (or as often as the log can tell): no recompilation, but a wait for the device; a
// line for a persistent cache whose entries the run found and could not read: why it compiled
// what the cache held; and what a stack's compile cache served or missed.
func (p *Document) hostReadAnswers(fs []ledger.Finding) {
	for _, f := range fs {
		switch {
		case (f.Kind == ledger.FindingHostRead || f.Kind == ledger.FindingCacheUnusable || f.Kind == ledger.FindingCompileCache) &&
			f.Severity == ledger.SeverityWarning:
			p.Answer = append(p.Answer, Answer{Tone: "warn", Text: f.Message, Action: f.Advice})
		case f.Kind == ledger.FindingCompileCache && f.Severity == ledger.SeverityInfo:
			p.Answer = append(p.Answer, Answer{Tone: "ok", Text: f.Message})
		}
	}
}

// verdictSections adds the programs that compiled again (cards), the user's lines ranked by
// what they cost, and the sizes to pad to.
func (p *Document) verdictSections(v *verdict.Result) {
	if v == nil {
		return
	}
	if len(v.Verdicts) > 0 {
		sec := Section{ID: "verdicts", Title: "What compiled again", Detail: true}
		for i, vd := range v.Verdicts {
			if i == maxCards {
				p.Omitted = append(p.Omitted, fmt.Sprintf("%d more programs that compiled again (--format json lists them all)", len(v.Verdicts)-i))
				break
			}
			sec.Cards = append(sec.Cards, verdictCard(vd))
		}
		p.Sections = append(p.Sections, sec)
	}
	if len(v.Sites) > 0 {
		t := newTable([]bool{false, true, true, true, false, false}, "call site", "compilations", "after warm-up", "compile time", "top cause", "example")
		for i, s := range v.Sites {
			if i == maxRows {
				p.Omitted = append(p.Omitted, fmt.Sprintf("%d more call sites (--format json lists them all)", len(v.Sites)-i))
				break
			}
			t.add(s.AfterWarmup > 0, s.Site, fmt.Sprint(s.Compilations), fmt.Sprint(s.AfterWarmup), dur(s.Time), nonEmpty(s.TopWords(), "-"),
				nonEmpty(shorten(s.Example, 80), "-"))
		}
		sec := Section{ID: "sites", Title: "Your lines that compiled", Table: t}
		if v.Unattributed > 0 {
			sec.Note = fmt.Sprintf("%s of compile time is not attributed to a line of the program's own code (the log names none, or only library code)", dur(v.Unattributed))
		}
		p.Sections = append(p.Sections, sec)
	}
	for _, vd := range v.Verdicts {
		// (a buffer grown at every step is allocated once at its maximum, not padded to buckets:
		// the answer says so, and a table of buckets beside it would say the opposite)
		if s := vd.Sizes; s != nil && s.Distinct() > 2 && len(s.Plans) > 0 && s.Grows == 0 {
			p.Sections = append(p.Sections, sizesSection(vd))
		}
	}
}

func verdictCard(v verdict.Verdict) Card {
	c := Card{Title: v.Title(), Severity: "warning", Advice: v.Action}
	if v.AfterWarmup > 0 {
		c.Severity = "error"
	}
	c.Lines = []string{v.CostLine()}
	for _, cs := range v.Causes {
		c.Causes = append(c.Causes, CardCause{Kind: cs.Label(v.Framework), Summary: cs.Summary()})
	}
	if s := v.Sizes; s != nil {
		c.Lines = append(c.Lines, s.Sentence())
	}
	return c
}

// sizesSection compares the bucket sets for a dimension that varied.
func sizesSection(v verdict.Verdict) Section {
	s := v.Sizes
	t := newTable([]bool{false, false, true, true, false}, "plan", "pad to", "compilations", "padding", "")
	for i, pl := range s.Plans {
		mark := ""
		if i == s.Best {
			mark = "recommended"
		}
		t.add(false, pl.Name, textutil.IntList(pl.Tops, 12), fmt.Sprint(pl.Compilations), fmt.Sprintf("%.1f%%", pl.Overhead), mark)
	}
	return Section{ID: "sizes", Title: "Sizes to pad to: " + v.Title(), Note: s.Note(), Table: t}
}

// recompiledKinds are the findings a verdict says better: the program's line in the answer
// carries its count, cost, causes and action.
var recompiledKinds = []ledger.FindingKind{ledger.FindingRecompiled, ledger.FindingRecompiledNewHash, ledger.FindingRecompiledSameHash}

// findings adds the findings; those about a program the verdict explains (with causes, or with
// the dump at hand: dumped) are lines on its card instead, with the verdict's action in place of
// their generic advice.
func (p *Document) findings(fs []ledger.Finding, v *verdict.Result, dumped bool) {
	programs := map[string]int{}
	if v != nil {
		for i, vd := range v.Verdicts {
			if len(vd.Causes) > 0 || dumped {
				programs[vd.Program] = i
			}
		}
	}
	sec := Section{ID: "findings", Title: "Findings"}
	for i, f := range fs {
		if vi, ok := programs[f.Module]; ok && slices.Contains(recompiledKinds, f.Kind) {
			for si := range p.Sections {
				if p.Sections[si].ID == "verdicts" && vi < len(p.Sections[si].Cards) {
					c := &p.Sections[si].Cards[vi]
					c.Notes = append(c.Notes, f.Message)
				}
			}
			continue
		}
		if len(sec.Cards) == maxCards {
			p.Omitted = append(p.Omitted, fmt.Sprintf("%d more findings (the report shows the first %d; --format json lists them all)",
				len(fs)-i, maxCards))
			break
		}
		c := Card{Title: string(f.Kind) + ": " + f.Module, Severity: string(f.Severity), Lines: []string{f.Message}, Advice: f.Advice}
		if f.Module == "" {
			c.Title = string(f.Kind)
		}
		if f.File != "" {
			c.Lines = append(c.Lines, fmt.Sprintf("%s:%d", f.File, f.Line))
		}
		sec.Cards = append(sec.Cards, c)
	}
	if len(sec.Cards) > 0 {
		p.Sections = append(p.Sections, sec)
	}
}

func guardDoc(g *across.Guard) *Document {
	p := scanDoc(g.Scan, "recomp guard", false)
	p.gate(g.Gate)
	// what --covered-by and --ranks-consistent add, after the gate's failures
	at := 0
	if len(p.Sections) > 0 && p.Sections[0].ID == "gate" {
		at = 1
	}
	var extra []Section
	if c := g.Coverage; c != nil {
		extra = append(extra, coverageSection(c))
	}
	if r := g.Ranks; r != nil {
		for _, sec := range ranksSections(r, &p.Omitted) {
			sec.ID = "ranks-" + sec.ID
			extra = append(extra, sec)
		}
		extra[len(extra)-1].Note = RanksHeadline(r)
	}
	p.Sections = slices.Insert(p.Sections, at, extra...)
	return p
}

// gate sets the gate's status and puts its failures first.
func (p *Document) gate(gr *gate.Result) {
	p.Status = gateStatus(gr)
	p.Tone = statusTone[p.Status]
	p.Headline = gr.Reason
	sec := Section{ID: "gate", Title: "Gate"}
	for _, pr := range gr.Problems {
		sec.Cards = append(sec.Cards, Card{Title: "no verdict: the evidence is incomplete", Severity: "warning", Lines: []string{pr}})
	}
	if len(gr.Failures) > 0 {
		t := newTable([]bool{false, false, false, true, false}, "log line", "program", "hash", "lost", "why")
		for i, f := range gr.Failures {
			if i == maxRows {
				break
			}
			// "compiled after warm-up" is what the table is of; what else the message says stays
			msg := f.Message
			if f.Kind == gate.FailCompilation {
				msg = strings.TrimPrefix(strings.TrimPrefix(msg, "compiled after warm-up"), ": ")
			}
			var why []string
			for _, s := range []string{msg, f.Reason} {
				if s != "" {
					why = append(why, s)
				}
			}
			t.add(!gr.Passed, fmt.Sprintf("%s:%d", f.File, f.Line), nonEmpty(f.Family, "-"), nonEmpty(f.Hash, "-"), dur(f.Duration),
				nonEmpty(strings.Join(why, "; "), "-"))
		}
		sec.Table = t
	}
	if n := gr.Compilations + gr.LoadFailures; n > len(sec.tableRows()) {
		sec.Note = fmt.Sprintf("%d failures, the first %d listed (--format json lists %d)", n, len(sec.tableRows()), ledger.MaxListed)
	}
	if len(sec.Cards) > 0 || sec.Table != nil {
		p.Sections = append([]Section{sec}, p.Sections...)
	}
}

func diffDoc(d *explain.Diff) *Document {
	same, differ := d.Counts()
	p := &Document{Title: "recomp " + commandOf(d),
		Headline: fmt.Sprintf("%s compared: %d differ, %d identical", plural(len(d.Pairs), "pair", "pairs"), differ, same)}
	if n := len(d.UnpairedA) + len(d.UnpairedB); n > 0 {
		p.Headline += fmt.Sprintf(", %d unpaired", n)
	}
	if n := len(d.Problems); n > 0 {
		p.Headline += ", " + plural(n, "unreadable module", "unreadable modules")
	}
	p.Status, p.Tone = "IDENTICAL", "ok"
	switch {
	case differ > 0 && d.Command == "explain" && !d.Recompiled():
		p.Status = "SET-UP" // the pairs differ only by state the first step built
	case differ > 0 || len(d.UnpairedA)+len(d.UnpairedB) > 0:
		p.Status, p.Tone = "DIFFER", "bad"
	}
	if len(d.Problems) > 0 {
		p.Status, p.Tone = "INCOMPLETE", "warn"
	}
	p.Totals = []Total{{Label: "pairs compared", Value: fmt.Sprint(len(d.Pairs))}, {Label: "differ", Value: fmt.Sprint(differ), Bad: differ > 0},
		{Label: "identical", Value: fmt.Sprint(same)}, {Label: "unpaired", Value: fmt.Sprint(len(d.UnpairedA) + len(d.UnpairedB))},
		{Label: "unreadable", Value: fmt.Sprint(len(d.Problems)), Bad: len(d.Problems) > 0}}
	groups := groupPairs(d.Pairs)
	if d.Verdict != nil {
		var sm ledger.Summary
		p.answer(d.Verdict, sm, nil)
		if len(d.Verdict.Verdicts) == 0 {
			p.Answer = nil // the log's compilations were not linked: the pairs say it
		}
	}
	if len(p.Answer) == 0 {
		p.pairAnswers(groups)
	}
	p.verdictSections(d.Verdict)
	if len(d.Families) > 0 {
		t := newTable([]bool{false, true, true, false}, "program", "dumps", "log compilations", "log hashes")
		for _, f := range d.Families {
			t.add(len(f.Files) > 1, f.Family, fmt.Sprint(len(f.Files)), fmt.Sprint(f.LogCompilations), joinOr(f.LogHashes, "-"))
		}
		p.Sections = append(p.Sections, Section{ID: "families", Title: "Programs in the dump", Table: t})
	}
	p.pairSections("pairs", "Compared pairs", groups, false, d.Verdict)
	var items []string
	for _, f := range d.UnpairedA {
		items = append(items, "only in A: "+f)
	}
	for _, f := range d.UnpairedB {
		items = append(items, "only in B: "+f)
	}
	for _, pr := range d.Problems {
		items = append(items, "could not be read (compared without it): "+pr.String())
	}
	for _, w := range d.Warnings {
		items = append(items, "warning: "+w)
	}
	if len(items) > 0 {
		p.Sections = append(p.Sections, Section{ID: "other", Title: "Unpaired and unreadable", Items: items,
			Note: "unpaired: no module of the same family and stage on the other side"})
	}
	return p
}

// pairGroup is a compared pair and the pairs after it that tell the same story.
type pairGroup struct {
	first *explain.DiffPair
	rest  []*explain.DiffPair
}

func groupPairs(pairs []*explain.DiffPair) []pairGroup {
	var gs []pairGroup
	for i := 0; i < len(pairs); {
		g := pairGroup{first: pairs[i]}
		j := i + 1
		for j < len(pairs) && sameStory(pairs[i], pairs[j]) {
			g.rest = append(g.rest, pairs[j])
			j++
		}
		gs = append(gs, g)
		i = j
	}
	return gs
}

// sameStory says whether pair b tells what pair a told: the same program, both identical or
// the same causes in the same order with the same advice, and no text diff of its own to show.
func sameStory(a, b *explain.DiffPair) bool {
	ca, cb := a.Result.Causes, b.Result.Causes
	if a.Label() != b.Label() || len(ca) != len(cb) || len(ca) == 0 || a.Result.Identical != b.Result.Identical || b.Text != nil {
		return false
	}
	for i := range ca {
		if ca[i].Kind != cb[i].Kind || ca[i].Advice != cb[i].Advice {
			return false
		}
	}
	return true
}

// pairAnswers answers with the compared pairs when no log says what compiled: one line per
// story, its main cause and advice.
func (p *Document) pairAnswers(groups []pairGroup) {
	n := 0
	for _, g := range groups {
		r := g.first.Result
		if len(r.Causes) == 0 {
			continue
		}
		if n == maxAnswers {
			p.Answer = append(p.Answer, Answer{Tone: "warn", Text: "more pairs differ (listed below)"})
			break
		}
		n++
		c := r.Causes[0]
		tone, what := "bad", ""
		switch {
		case r.Identical:
			tone = "ok"
		case c.Once:
			// state the first step built: set-up, not a recompilation
			tone, what = "ok", "set-up, expected once: "
		}
		text := shorten(g.first.Label(), 80) + ": " + what + c.Summary
		if len(g.rest) > 0 {
			text += fmt.Sprintf(" (%d pairs)", len(g.rest)+1)
		}
		p.Answer = append(p.Answer, Answer{Tone: tone, Text: text, Action: c.Advice})
	}
}

// pairSections adds the cards of the compared pairs, a story once with the pairs that repeat
// it listed under it.
// The causes' advice is the verdict's where it answers for the pair's program (one voice: the
// answer and the pairs under it say the same thing to do); v may be nil.
func (p *Document) pairSections(id, title string, groups []pairGroup, onlyDiffer bool, v *verdict.Result) {
	sec := Section{ID: id, Title: title}
	for _, g := range groups {
		if onlyDiffer && g.first.Result.Identical && len(groups) > 1 {
			continue
		}
		if len(sec.Cards) == maxCards {
			p.Omitted = append(p.Omitted, fmt.Sprintf("more compared pairs (the report shows %d stories; --format json lists every pair)", maxCards))
			break
		}
		c := pairCard(g.first, v)
		for _, q := range g.rest {
			c.Same = append(c.Same, fmt.Sprintf("%s → %s: %s", dumpID(q.A.Path), dumpID(q.B.Path), q.Result.Causes[0].Summary))
		}
		sec.Cards = append(sec.Cards, c)
	}
	if len(sec.Cards) > 0 {
		p.Sections = append(p.Sections, sec)
	}
}

func pairCard(pr *explain.DiffPair, v *verdict.Result) Card {
	r := pr.Result
	c := Card{Title: pr.Label(), Severity: "error", Lines: []string{pr.A.Path + " → " + pr.B.Path}, Notes: slices.Clone(r.Notes)}
	if r.Identical {
		c.Severity = "ok"
	}
	if pr.HashA != "" || pr.HashB != "" {
		c.Lines = append(c.Lines, "log hashes: "+nonEmpty(pr.HashA, "?")+" → "+nonEmpty(pr.HashB, "?"))
	}
	for _, cs := range r.Causes {
		adv := cs.Advice
		if a := v.CauseAdvice(pr.Label(), cs.Kind); a != "" {
			adv = a
		}
		c.Causes = append(c.Causes, CardCause{Kind: causeKindLabel(cs.Kind), Summary: cs.Summary, Evidence: groupEvidence(cs.Evidence), Advice: adv})
	}
	if !r.Identical {
		c.Lines = append(c.Lines, fmt.Sprintf("%d change(s) %s; %d instructions matched, %d added, %d removed", r.ChangeCount, kindCounts(r), r.Matched, r.Added, r.Removed))
	}
	if pr.Text != nil {
		c.Diff = pr.Text
		c.Notes = append(c.Notes, pr.Text.Notes...)
	}
	return c
}

func causeKindLabel(k diff.CauseKind) string {
	if k == diff.CauseIdentical {
		return "identical"
	}
	return string(k)
}

// groupEvidence keeps the evidence short: of the lines that say the same kind of thing (the
// words before their first ": "), the first few, then how many more.
func groupEvidence(ev []string) []string {
	if len(ev) <= maxEvidence {
		return ev
	}
	kindOf := func(s string) string {
		k, _, ok := strings.Cut(s, ": ")
		if !ok {
			return ""
		}
		return k
	}
	count := map[string]int{}
	for _, e := range ev {
		count[kindOf(e)]++
	}
	shown := map[string]int{}
	var out []string
	for _, e := range ev {
		k := kindOf(e)
		shown[k]++
		switch {
		case shown[k] <= maxEvidence:
			out = append(out, e)
		case shown[k] == maxEvidence+1:
			switch {
			case k == "":
				out = append(out, fmt.Sprintf("… %d more", count[k]-maxEvidence))
			case !strings.Contains(k, " "): // a computation's name
				out = append(out, fmt.Sprintf("… %d more in %s", count[k]-maxEvidence, k))
			default:
				out = append(out, fmt.Sprintf("… %d more: %s", count[k]-maxEvidence, k))
			}
		}
	}
	return out
}

func runDoc(r *explain.Run) *Document {
	title := "recomp run"
	p := scanDoc(r.Scan, title, r.Explain != nil)
	p.Headline = runHeadline(r)
	if r.Gate != nil {
		p.gate(r.Gate)
		p.Headline = runHeadline(r) + " · " + r.Gate.Reason
	}
	if r.Explain != nil && len(r.Explain.Pairs) > 0 {
		sec := Section{}
		q := &Document{}
		q.pairSections("causes", "What changed in the graph", groupPairs(r.Explain.Pairs), true, r.Scan.Verdict)
		p.Omitted = append(p.Omitted, q.Omitted...)
		if len(q.Sections) > 0 {
			sec = q.Sections[0]
			// after the answer's sections (verdicts, sites, sizes), before the findings
			at := len(p.Sections)
			for i, s := range p.Sections {
				if s.ID != "gate" && s.ID != "verdicts" && s.ID != "sites" && s.ID != "sizes" {
					at = i
					break
				}
			}
			p.Sections = slices.Insert(p.Sections, at, sec)
		}
	}
	// No compile evidence, or a command that failed (or was stopped) before anything compiled (a
	// trace that raised): the command's own end is the story, not the logging recomp switched on.
	if sm := r.Scan.Ledger.Summary; sm.Events == 0 && sm.UnreadRecords == 0 || verdict.EndedBeforeCompiling(sm, r.Manifest) {
		p.noEvidenceInRun(r)
	}
	info := Section{ID: "run", Title: "The run", Items: append([]string{"run folder " + r.Folder}, runFacts(r)...)}
	set := Section{ID: "settings", Title: "What recomp switched on", Detail: true}
	used := verdict.UsedFrameworks(r.Scan.Ledger)
	hidden := 0
	for _, s := range r.Manifest.Settings {
		if s.Framework != "" && len(used) > 0 && !used[s.Framework] {
			hidden++
			continue
		}
		item := "set " + s.Name + "=" + s.Value
		if s.Kept {
			item = "kept your " + s.Name + "=" + s.Value
		}
		if s.Effect != "" {
			item += " — " + s.Effect
		}
		set.Items = append(set.Items, item)
	}
	if hidden > 0 {
		set.Note = fmt.Sprintf("%s for stacks the run did not use are not listed; the run folder's manifest.json lists every one", plural(hidden, "setting", "settings"))
	}
	p.Sections = append(p.Sections, info, set)
	return p
}

func cacheDoc(c *Cache) *Document {
	inv := c.Inventory
	p := &Document{Title: "recomp cache", Headline: fmt.Sprintf("%s, %s", plural(inv.Count, "entry", "entries"), humanBytes(inv.Bytes))}
	if k := kindsLine(inv.ByKind); k != "" {
		p.Headline += " (" + k + ")"
	}
	p.Totals = []Total{{Label: "entries", Value: fmt.Sprint(inv.Count)}, {Label: "size", Value: humanBytes(inv.Bytes)}}
	if c.LogsGiven {
		p.Totals = append(p.Totals, Total{Label: "not used by the given runs", Value: fmt.Sprintf("%d (%s)", inv.Unused, humanBytes(inv.UnusedBytes)), Bad: inv.Unused > 0})
		tone := "ok"
		if inv.Unused > 0 {
			tone = "warn"
		}
		p.Answer = append(p.Answer, Answer{Tone: tone, Text: fmt.Sprintf("not used by the given runs: %s, %s", plural(inv.Unused, "entry", "entries"), humanBytes(inv.UnusedBytes))})
	}
	for _, m := range inv.MissingMisses {
		p.Answer = append(p.Answer, Answer{Tone: "bad", Text: "missed and still absent: " + m,
			Action: "the run looked for it and never wrote it: was the compile interrupted or the cache read-only?"})
	}
	if inv.Foreign > 0 {
		p.Totals = append(p.Totals, Total{Label: "files that are not cache entries (never proposed for removal)", Value: fmt.Sprint(inv.Foreign)})
	}
	if inv.Damaged > 0 {
		p.Totals = append(p.Totals, Total{Label: "partial, locked, failed, corrupt or foreign entries", Value: fmt.Sprint(inv.Damaged), Bad: true})
	}
	programs := slices.ContainsFunc(inv.Entries, func(e *cache.CacheEntry) bool { return e.Graph != "" || e.State != "" })
	t := newTable([]bool{false, false, true, false, false}, "entry", "kind", "size", "modified", "status")
	if programs {
		t = newTable([]bool{false, false, false, false, true, false, false}, "entry", "kind", "program", "state", "size", "modified", "status")
	}
	for _, e := range inv.Entries {
		if len(t.Rows) == maxRows {
			break
		}
		cells := []string{ShellQuote(e.Dir + "/" + e.Name), string(e.Kind)}
		if programs {
			cells = append(cells, orDash(e.Graph), orDash(e.State))
		}
		cells = append(cells, humanBytes(e.Size), e.ModTime.UTC().Format("2006-01-02T15:04:05Z"), entryStatus(e, c.LogsGiven))
		t.add(false, cells...)
	}
	sec := Section{ID: "entries", Title: "Entries", Table: t}
	if shown := len(t.Rows); shown < inv.Count {
		sec.Note = fmt.Sprintf("%d more entries counted, not listed", inv.Count-shown)
	}
	if len(t.Rows) > 0 {
		p.Sections = append(p.Sections, sec)
	}
	if len(inv.Missed) > 0 {
		p.missedSections(inv.Missed)
	}
	if c.Against != nil {
		p.againstSections(c)
	}
	var warns []string
	for _, w := range inv.Warnings {
		warns = append(warns, "warning: "+w)
	}
	if len(warns) > 0 {
		p.Sections = append(p.Sections, Section{ID: "warnings", Title: "Warnings", Items: warns})
	}
	if cmd := PruneCommand(c); cmd != "" {
		p.Sections = append(p.Sections, Section{ID: "prune", Title: "To remove the entries these runs did not use",
			Note: "recomp never deletes anything; check the list, then run:", Items: []string{cmd}, Code: true})
	}
	return p
}

// missedSections lays out why the runs missed the keys they missed: an answer per key, and its
// parts side by side with the cache's nearest entry.
func (p *Document) missedSections(missed []*cache.KeyComparison) {
	t := newTable(nil, "missed key", "part", "factor", "the cache's entry", "the run")
	for _, k := range missed {
		p.Answer = append(p.Answer, Answer{Tone: "bad", Text: "missed " + k.B + ": " + k.Summary, Action: k.Remedy})
		for _, pp := range k.Parts {
			if pp.Differ() && len(t.Rows) < maxRows {
				t.add(false, k.B, pp.Part.String(), pp.Name, orDash(pp.A), orDash(pp.B))
			}
		}
	}
	if len(t.Rows) > 0 {
		p.Sections = append(p.Sections, Section{ID: "missed", Title: "Why the runs missed: the parts of their keys that differ from the cache's entries", Table: t})
	}
}

// againstSections lays out why the cache's entries are not those of the cache held against it:
// an answer per entry that is not there, and the key's parts side by side.
func (p *Document) againstSections(c *Cache) {
	cmp := c.Against
	t := newTable(nil, "entry", "part", "factor", "cache A", "this cache")
	for _, k := range cmp.Entries {
		if k.InA {
			continue
		}
		p.Answer = append(p.Answer, Answer{Tone: "bad", Text: k.B + ": " + k.Summary, Action: k.Remedy})
		for _, pp := range k.Parts {
			if pp.Differ() && len(t.Rows) < maxRows {
				t.add(false, k.B, pp.Part.String(), pp.Name, orDash(pp.A), orDash(pp.B))
			}
		}
	}
	p.Totals = append(p.Totals, Total{Label: "entries cache A holds too", Value: fmt.Sprintf("%d of %d", cmp.Held, len(cmp.Entries)),
		Bad: cmp.Held < len(cmp.Entries)})
	if cmp.Held == len(cmp.Entries) && len(cmp.Entries) > 0 {
		p.Answer = append(p.Answer, Answer{Tone: "ok", Text: "cache A (" + strings.Join(c.AgainstDirs, ", ") + ") holds every key of this cache"})
	}
	if len(t.Rows) > 0 {
		p.Sections = append(p.Sections, Section{ID: "against", Title: "The parts of the keys that differ from cache A (" + strings.Join(c.AgainstDirs, ", ") + ")", Table: t})
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// answer fills the cost headline and the answer's lines, in the verdict's words. rep, when
// given, says whether the logs hold evidence: without it, no all-clear.
func (p *Document) answer(v *verdict.Result, sm ledger.Summary, rep *ledger.Report) {
	if v == nil {
		return
	}
	p.Cost = v.Headline()
	var doubts []string // the gate's doubts that a process, or a stack in it, left no record of each compilation
	if rep != nil {
		for _, d := range gate.EvidenceDoubts(rep) {
			if d.Missing {
				doubts = append(doubts, d.Text)
			}
		}
	}
	for _, a := range v.Answers(sm, rep, doubts, maxAnswers) {
		p.Answer = append(p.Answer, Answer(a))
	}
}

// noEvidenceInRun answers a run whose log holds no compile evidence (verdict.NoEvidenceInRun),
// and gives the no-evidence finding what recomp switched on as its advice.
func (p *Document) noEvidenceInRun(r *explain.Run) {
	a, on := verdict.NoEvidenceInRun(r.Manifest)
	p.Answer = []Answer{Answer(a)}
	for si := range p.Sections {
		if p.Sections[si].ID != "findings" {
			continue
		}
		for ci, c := range p.Sections[si].Cards {
			if c.Title == string(ledger.FindingNoEvidence) {
				p.Sections[si].Cards[ci].Advice = on + " (What recomp switched on lists each setting)"
			}
		}
	}
}
