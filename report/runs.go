package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/recomp/recomp/across"
)

// recomp diff of two runs in every format: a headline (how many of B's programs A's cache
// served, how many it missed and why), then one block per program of B, then what the
// manifests say differently, then the dumps' comparison.

// runsHeadline says in one line what B's cache lookups came to.
func runsHeadline(r *across.RunsDiff) string {
	missed, by := r.Missed()
	served := len(r.Programs) - missed
	s := fmt.Sprintf("run B made %s: %d served from the cache", plural(len(r.Programs), "compile request", "compile requests"), served)
	if d := r.SavedTotal(); served > 0 && d > 0 {
		s += fmt.Sprintf(" (saving %s)", dur(d))
	}
	s += fmt.Sprintf(", %d compiled", missed)
	if missed > 0 {
		var parts []string
		for _, k := range missOrder {
			if by[k] > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", k, by[k]))
			}
		}
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}

// missOrder is the order reasons are counted in.
var missOrder = []across.MissReason{across.MissGraphDiffers, across.MissKeyOutsideGraph, across.MissNeverWritten, across.MissEvicted, across.MissUnreadable, across.MissReadOnly,
	across.MissNotInA, across.MissNotLookedUp, across.MissUnknown}

func sideLine(s across.RunSide) string {
	var parts []string
	if len(s.Logs) > 0 {
		parts = append(parts, "log "+strings.Join(s.Logs, ", "))
	}
	if len(s.Traces) > 0 {
		parts = append(parts, "trace "+strings.Join(s.Traces, ", "))
	}
	if s.Dump != "" {
		parts = append(parts, "dump "+s.Dump)
	}
	if s.Manifest != "" {
		parts = append(parts, "manifest "+s.Manifest)
	}
	if len(parts) == 0 {
		return s.Path
	}
	return strings.Join(parts, "; ")
}

// RunsDiffJSON is the document of recomp diff of two runs.
type RunsDiffJSON struct {
	Version  int              `json:"version"`
	A        RunSideJSON      `json:"a"`
	B        RunSideJSON      `json:"b"`
	Summary  RunsSummaryJSON  `json:"summary"`
	Programs []ProgramJSON    `json:"programs"`
	Settings []DifferenceJSON `json:"settings"`
	Versions []DifferenceJSON `json:"versions"`
	Dumps    *DiffJSON        `json:"dumps"`
	Warnings []string         `json:"warnings"`
	Eager    int              `json:"eager_requests"`
}

type RunSideJSON struct {
	Path     string   `json:"path"`
	Logs     []string `json:"logs"`
	Dump     string   `json:"dump"`
	Manifest string   `json:"manifest"`
	Caches   []string `json:"caches"`
	Traces   []string `json:"traces"`
}

type RunsSummaryJSON struct {
	Requests     int            `json:"requests"`
	Served       int            `json:"served"`
	Missed       int            `json:"missed"`
	ByReason     map[string]int `json:"by_reason"`
	SavedSeconds float64        `json:"saved_seconds"`
}

type ProgramJSON struct {
	Program         string     `json:"program"`
	Module          string     `json:"module"`
	Signature       string     `json:"signature,omitempty"`
	Args            string     `json:"args,omitempty"`
	File            string     `json:"file"`
	Line            int        `json:"line"`
	Served          bool       `json:"served"`
	SavedSeconds    *float64   `json:"saved_seconds,omitempty"`
	SavedFrom       string     `json:"saved_from,omitempty"`
	KeyA            string     `json:"key_a"`
	KeyB            string     `json:"key_b"`
	CounterpartFile string     `json:"counterpart_file,omitempty"`
	CounterpartLine int        `json:"counterpart_line,omitempty"`
	Reason          string     `json:"reason"`
	Summary         string     `json:"summary"`
	Component       string     `json:"component,omitempty"`
	Changed         []string   `json:"changed"`
	Quote           *QuoteJSON `json:"quote,omitempty"`
	Cause           *CauseJSON `json:"cause,omitempty"`
	CauseFrom       string     `json:"cause_from,omitempty"`
	Pair            *PairJSON  `json:"pair,omitempty"`
	Advice          string     `json:"advice,omitempty"`
}

type QuoteJSON struct {
	Producer string `json:"producer"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Text     string `json:"text"`
}

type DifferenceJSON struct {
	Name string `json:"name"`
	A    string `json:"a"`
	B    string `json:"b"`
}

func sideDocument(s across.RunSide) RunSideJSON {
	return RunSideJSON{Path: s.Path, Logs: nonNil(s.Logs), Dump: s.Dump, Manifest: s.Manifest, Caches: nonNil(s.Caches), Traces: nonNil(s.Traces)}
}

func differences(ds []across.Difference) []DifferenceJSON {
	out := []DifferenceJSON{}
	for _, d := range ds {
		out = append(out, DifferenceJSON(d))
	}
	return out
}

// RunsDiffDocument is the JSON document of recomp diff of two runs.
func RunsDiffDocument(r *across.RunsDiff) RunsDiffJSON {
	missed, by := r.Missed()
	doc := RunsDiffJSON{Version: JSONVersion, A: sideDocument(r.A), B: sideDocument(r.B), Programs: []ProgramJSON{},
		Settings: differences(r.Settings), Versions: differences(r.Versions), Warnings: nonNil(r.Warnings), Eager: r.Eager,
		Summary: RunsSummaryJSON{Requests: len(r.Programs), Served: len(r.Programs) - missed, Missed: missed, ByReason: map[string]int{},
			SavedSeconds: seconds(r.SavedTotal())}}
	for k, n := range by {
		doc.Summary.ByReason[string(k)] = n
	}
	for _, v := range r.Programs {
		pj := ProgramJSON{Program: v.Program, Module: v.Module, Signature: v.Signature, Args: v.Args, File: v.File, Line: v.Line, Served: v.Served,
			SavedFrom: v.SavedFrom, KeyA: v.KeyA, KeyB: v.KeyB, CounterpartFile: v.CounterpartFile, CounterpartLine: v.CounterpartLine,
			Reason: string(v.Reason), Summary: v.Summary, Component: v.Component, Changed: nonNil(v.Changed), Cause: causeRef(v.Cause),
			CauseFrom: v.CauseFrom, Pair: pairRef(v.Pair), Advice: v.Advice}
		if v.Served && v.SavedFrom != "" {
			s := seconds(v.Saved)
			pj.SavedSeconds = &s
		}
		if v.Quote != nil {
			pj.Quote = &QuoteJSON{Producer: string(v.Quote.Producer), File: v.Quote.File, Line: v.Quote.Line, Text: v.Quote.Text}
		}
		doc.Programs = append(doc.Programs, pj)
	}
	if r.Dumps != nil {
		d := DiffDocument(r.Dumps)
		doc.Dumps = &d
	}
	return doc
}

// runsDoc is the document of recomp diff of two runs: what B's cache lookups came to, then one
// card per program of B (served, or missed with its reason, what changed, the framework's
// words, the cause from the dumps, the advice), what the manifests say differently, and the
// dumps' comparison.
func runsDoc(r *across.RunsDiff) *Document {
	missed, _ := r.Missed()
	p := &Document{Title: "recomp diff", Headline: runsHeadline(r)}
	p.Status, p.Tone = "SERVED", "ok"
	if missed > 0 {
		p.Status, p.Tone = "MISSED", "bad"
	}
	p.Totals = []Total{{Label: "B's requests", Value: fmt.Sprint(len(r.Programs))},
		{Label: "served from the cache", Value: fmt.Sprint(len(r.Programs) - missed)},
		{Label: "compiled again", Value: fmt.Sprint(missed), Bad: missed > 0},
		{Label: "saved", Value: dur(r.SavedTotal())}}
	for _, v := range r.Programs {
		if v.Served {
			continue
		}
		if len(p.Answer) == maxAnswers {
			p.Answer = append(p.Answer, Answer{Tone: "bad", Text: fmt.Sprintf("%d more missed (listed below)", missed-maxAnswers)})
			break
		}
		p.Answer = append(p.Answer, Answer{Tone: "bad", Text: fmt.Sprintf("%s missed the cache: %s: %s", v.Program, v.Reason, v.Summary), Action: v.Advice})
	}
	info := Section{ID: "runs", Title: "The runs", Items: []string{"A: " + sideLine(r.A), "B: " + sideLine(r.B)}}
	if len(r.A.Caches) > 0 {
		info.Items = append(info.Items, "cache: "+strings.Join(r.A.Caches, ", "))
	}
	if r.Eager > 0 {
		info.Note = plural(r.Eager, "compile request", "compile requests") + " of eager one-op programs in B left out"
	}
	sec := Section{ID: "programs", Title: "Run B's programs"}
	for i, v := range r.Programs {
		if i == maxCards {
			p.Omitted = append(p.Omitted, fmt.Sprintf("%d more programs (--format json lists them all)", len(r.Programs)-i))
			break
		}
		c := Card{Title: v.Program, Severity: "ok", Lines: []string{fmt.Sprintf("%s:%d", v.File, v.Line)}}
		if v.Args != "" {
			c.Lines = append(c.Lines, "arguments "+v.Args)
		}
		if v.Served {
			line := "served: " + v.Summary
			if s := across.SavedText(v); s != "" {
				line += "; " + s
			}
			c.Lines = append(c.Lines, line)
			sec.Cards = append(sec.Cards, c)
			continue
		}
		c.Severity = "error"
		c.Lines = append(c.Lines, fmt.Sprintf("missed: %s: %s", v.Reason, v.Summary))
		if v.KeyA != "" || v.KeyB != "" {
			c.Lines = append(c.Lines, "keys: A "+nonEmpty(v.KeyA, "-")+", B "+nonEmpty(v.KeyB, "-"))
		}
		if v.Component != "" {
			c.Lines = append(c.Lines, "changed outside the graph: "+v.Component)
		}
		c.Lines = append(c.Lines, v.Changed...)
		if q := v.Quote; q != nil {
			c.Lines = append(c.Lines, fmt.Sprintf("%s said (%s:%d): %s", nonEmpty(string(q.Producer), "the framework"), filepath.Base(q.File), q.Line, q.Text))
		}
		if cs := v.Cause; cs != nil {
			c.Causes = append(c.Causes, CardCause{Kind: causeKindLabel(cs.Kind), Summary: cs.Summary + " (from the " + v.CauseFrom + ")", Evidence: groupEvidence(cs.Evidence)})
		}
		if v.Pair != nil {
			c.Lines = append(c.Lines, "dumps: "+v.Pair.A.Path+" → "+v.Pair.B.Path)
		}
		c.Advice = v.Advice
		sec.Cards = append(sec.Cards, c)
	}
	p.Sections = []Section{sec, info}
	if len(r.Settings)+len(r.Versions) > 0 {
		t := newTable(nil, "manifest", "A", "B")
		for _, d := range append(append([]across.Difference{}, r.Settings...), r.Versions...) {
			t.add(true, d.Name, nonEmpty(d.A, "(not set)"), nonEmpty(d.B, "(not set)"))
		}
		p.Sections = append(p.Sections, Section{ID: "manifests", Title: "What the manifests say differently", Table: t})
	}
	if d := r.Dumps; d != nil {
		same, differ := d.Counts()
		ds := Section{ID: "dumps", Title: "The dumps compared", Detail: true,
			Note: fmt.Sprintf("%s compared, %d differ, %d identical, %d unpaired (recomp diff A_DUMP B_DUMP shows each)",
				plural(len(d.Pairs), "pair", "pairs"), differ, same, len(d.UnpairedA)+len(d.UnpairedB))}
		q := &Document{}
		q.pairSections("dumps", "", groupPairs(d.Pairs), true, nil)
		if len(q.Sections) > 0 {
			ds.Cards = q.Sections[0].Cards
		}
		p.Omitted = append(p.Omitted, q.Omitted...)
		for _, pr := range d.Problems {
			ds.Items = append(ds.Items, "could not be read: "+pr.String())
		}
		p.Sections = append(p.Sections, ds)
	}
	if len(r.Warnings) > 0 {
		var ws []string
		for _, w := range r.Warnings {
			ws = append(ws, "warning: "+w)
		}
		p.Sections = append(p.Sections, Section{ID: "warnings", Title: "Warnings", Items: ws})
	}
	return p
}
