package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// recomp diff of two runs in every format: a headline (how many of B's programs A's cache
// served, how many it missed and why), then one block per program of B, then what the
// manifests say differently, then the dumps' comparison.

func (r *RunsDiff) render(w io.Writer, f Format, st Style) error {
	switch f {
	case Text:
		return r.text(w, painter{st.Color})
	case JSON:
		return writeJSON(w, RunsDiffDocument(r))
	case Markdown:
		return r.markdown(w)
	case HTML:
		return r.html(w, st.Meta)
	}
	return fmt.Errorf("recomp diff cannot write %s", f)
}

// runsHeadline says in one line what B's cache lookups came to.
func (r *RunsDiff) runsHeadline() string {
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
var missOrder = []MissReason{MissGraphDiffers, MissKeyOutsideGraph, MissNeverWritten, MissEvicted, MissUnreadable, MissReadOnly,
	MissNotInA, MissNotLookedUp, MissUnknown}

func sideLine(s RunSide) string {
	var parts []string
	if len(s.Logs) > 0 {
		parts = append(parts, "log "+strings.Join(s.Logs, ", "))
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

// quoteLine is where a framework said it, and what.
func (v *ProgramVerdict) quoteLine() string {
	if v.Quote == nil {
		return ""
	}
	return fmt.Sprintf("%s:%d: %s", filepath.Base(v.Quote.File), v.Quote.Line, v.Quote.Text)
}

func (v *ProgramVerdict) savedText() string {
	switch v.SavedFrom {
	case "log":
		return fmt.Sprintf("saved %s", dur(v.Saved))
	case "cache entry":
		return fmt.Sprintf("saved %s (from the compile time JAX stored in the entry, whole seconds)", dur(v.Saved))
	}
	return ""
}

func (r *RunsDiff) text(w io.Writer, p painter) error {
	fmt.Fprintf(w, "%s: %s\n", p.bold("recomp diff"), r.runsHeadline())
	fmt.Fprintf(w, "  A: %s\n  B: %s\n", sideLine(r.A), sideLine(r.B))
	if len(r.A.Caches) > 0 {
		fmt.Fprintf(w, "  cache: %s\n", strings.Join(r.A.Caches, ", "))
	}
	if r.Eager > 0 {
		fmt.Fprintf(w, "  (%s of eager one-op programs in B left out)\n", plural(r.Eager, "compile request", "compile requests"))
	}
	for _, v := range r.Programs {
		fmt.Fprintf(w, "\n%s  %s:%d\n", p.bold(v.Program), v.File, v.Line)
		if v.Args != "" {
			fmt.Fprintf(w, "  arguments %s\n", v.Args)
		}
		if v.Served {
			line := "served: " + v.Summary
			if s := v.savedText(); s != "" {
				line += "; " + s
			}
			fmt.Fprintf(w, "  %s\n", line)
			continue
		}
		fmt.Fprintf(w, "  %s %s: %s\n", p.sev("missed"), v.Reason, v.Summary)
		if v.KeyA != "" || v.KeyB != "" {
			fmt.Fprintf(w, "    keys: A %s, B %s\n", nonEmpty(v.KeyA, "-"), nonEmpty(v.KeyB, "-"))
		}
		if v.Component != "" {
			fmt.Fprintf(w, "    changed outside the graph: %s\n", v.Component)
		}
		for _, c := range v.Changed {
			fmt.Fprintf(w, "      %s\n", c)
		}
		if q := v.Quote; q != nil {
			fmt.Fprintf(w, "    %s said (%s:%d): %s\n", nonEmpty(string(q.Producer), "the framework"), filepath.Base(q.File), q.Line, q.Text)
		}
		if c := v.Cause; c != nil {
			fmt.Fprintf(w, "    %s (from the %s): %s\n", causeLabel(c.Kind), v.CauseFrom, c.Summary)
			for _, ev := range c.Evidence[:min(len(c.Evidence), 4)] {
				fmt.Fprintf(w, "        %s\n", ev)
			}
		}
		if v.Pair != nil {
			fmt.Fprintf(w, "    dumps: %s → %s\n", v.Pair.A.Path, v.Pair.B.Path)
		}
		if v.Advice != "" {
			fmt.Fprintf(w, "    advice: %s\n", v.Advice)
		}
	}
	if len(r.Settings)+len(r.Versions) > 0 {
		fmt.Fprintln(w, "\nthe manifests differ:")
		for _, d := range append(append([]Difference{}, r.Settings...), r.Versions...) {
			fmt.Fprintf(w, "  %s: %s → %s\n", d.Name, nonEmpty(d.A, "(not set)"), nonEmpty(d.B, "(not set)"))
		}
	}
	if d := r.Dumps; d != nil {
		same, differ := d.Counts()
		fmt.Fprintf(w, "\ndumps: %s compared, %d differ, %d identical, %d unpaired", plural(len(d.Pairs), "pair", "pairs"), differ, same,
			len(d.UnpairedA)+len(d.UnpairedB))
		if len(d.Problems) > 0 {
			fmt.Fprintf(w, ", %s", plural(len(d.Problems), "unreadable module", "unreadable modules"))
		}
		fmt.Fprintln(w, " (recomp diff A_DUMP B_DUMP shows each)")
		for _, pr := range d.Problems {
			fmt.Fprintf(w, "  could not be read: %s\n", pr)
		}
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", wn)
	}
	return nil
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

func sideDocument(s RunSide) RunSideJSON {
	return RunSideJSON{Path: s.Path, Logs: nonNil(s.Logs), Dump: s.Dump, Manifest: s.Manifest, Caches: nonNil(s.Caches)}
}

func differences(ds []Difference) []DifferenceJSON {
	out := []DifferenceJSON{}
	for _, d := range ds {
		out = append(out, DifferenceJSON(d))
	}
	return out
}

// RunsDiffDocument is the JSON document of recomp diff of two runs.
func RunsDiffDocument(r *RunsDiff) RunsDiffJSON {
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
			Reason: string(v.Reason), Summary: v.Summary, Component: v.Component, Changed: nonNil(v.Changed), CauseFrom: v.CauseFrom,
			Advice: v.Advice}
		if v.Served && v.SavedFrom != "" {
			s := seconds(v.Saved)
			pj.SavedSeconds = &s
		}
		if v.Quote != nil {
			pj.Quote = &QuoteJSON{Producer: string(v.Quote.Producer), File: v.Quote.File, Line: v.Quote.Line, Text: v.Quote.Text}
		}
		if v.Cause != nil {
			pj.Cause = &CauseJSON{Kind: string(v.Cause.Kind), Summary: v.Cause.Summary, Evidence: nonNil(v.Cause.Evidence), Advice: v.Cause.Advice}
		}
		if v.Pair != nil {
			p := pairDocument(v.Pair)
			pj.Pair = &p
		}
		doc.Programs = append(doc.Programs, pj)
	}
	if r.Dumps != nil {
		d := DiffDocument(r.Dumps)
		doc.Dumps = &d
	}
	return doc
}

func (r *RunsDiff) markdown(w io.Writer) error {
	fmt.Fprintf(w, "## recomp diff\n\n%s.\n\n- A: %s\n- B: %s\n\n", mdEscape(r.runsHeadline()), mdEscape(sideLine(r.A)), mdEscape(sideLine(r.B)))
	if len(r.Programs) > 0 {
		fmt.Fprintf(w, "| program | B's request | cache | reason | what |\n|---|---|---|---|---|\n")
		for _, v := range r.Programs {
			status, reason := "missed", string(v.Reason)
			if v.Served {
				status, reason = "served", "-"
			}
			what := v.Summary
			if s := v.savedText(); v.Served && s != "" {
				what += "; " + s
			}
			fmt.Fprintf(w, "| `%s` | `%s:%d` | %s | %s | %s |\n", mdEscape(v.Program), mdEscape(v.File), v.Line, status, reason, mdEscape(what))
		}
		fmt.Fprintln(w)
	}
	for _, v := range r.Programs {
		if v.Served || (v.Quote == nil && v.Cause == nil && len(v.Changed) == 0) {
			continue
		}
		fmt.Fprintf(w, "<details><summary>%s: %s</summary>\n\n", mdEscape(v.Program), v.Reason)
		for _, c := range v.Changed {
			fmt.Fprintf(w, "- %s\n", mdEscape(c))
		}
		if q := v.quoteLine(); q != "" {
			fmt.Fprintf(w, "- said: `%s`\n", mdEscape(q))
		}
		if c := v.Cause; c != nil {
			fmt.Fprintf(w, "- %s (from the %s): %s\n", c.Kind, v.CauseFrom, mdEscape(c.Summary))
			for _, ev := range c.Evidence {
				fmt.Fprintf(w, "  - `%s`\n", mdEscape(ev))
			}
		}
		if v.Advice != "" {
			fmt.Fprintf(w, "\n**Advice:** %s\n", mdEscape(v.Advice))
		}
		fmt.Fprintf(w, "\n</details>\n\n")
	}
	if len(r.Settings)+len(r.Versions) > 0 {
		fmt.Fprintf(w, "| manifest | A | B |\n|---|---|---|\n")
		for _, d := range append(append([]Difference{}, r.Settings...), r.Versions...) {
			fmt.Fprintf(w, "| %s | `%s` | `%s` |\n", mdEscape(d.Name), mdEscape(d.A), mdEscape(d.B))
		}
		fmt.Fprintln(w)
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(w, "- warning: %s\n", mdEscape(wn))
	}
	return nil
}

func (r *RunsDiff) html(w io.Writer, meta Meta) error {
	missed, _ := r.Missed()
	p := &htmlPage{Title: "recomp diff", Meta: meta, Headline: r.runsHeadline()}
	p.Verdict, p.Class = "SERVED", "ok"
	if missed > 0 {
		p.Verdict, p.Class = "MISSED", "bad"
	}
	p.Totals = []htmlTotal{{Label: "B's requests", Value: fmt.Sprint(len(r.Programs))},
		{Label: "served from the cache", Value: fmt.Sprint(len(r.Programs) - missed)},
		{Label: "compiled again", Value: fmt.Sprint(missed), Bad: missed > 0},
		{Label: "saved", Value: dur(r.SavedTotal())}}
	info := htmlSection{ID: "runs", Title: "The runs", Items: []string{"A: " + sideLine(r.A), "B: " + sideLine(r.B)}}
	if len(r.A.Caches) > 0 {
		info.Items = append(info.Items, "cache: "+strings.Join(r.A.Caches, ", "))
	}
	sec := htmlSection{ID: "programs", Title: "Run B's programs"}
	for i, v := range r.Programs {
		if i == htmlMaxCards {
			p.Omitted = append(p.Omitted, fmt.Sprintf("%d more programs (--format json lists them all)", len(r.Programs)-i))
			break
		}
		c := htmlCard{Title: v.Program, Severity: "ok", Lines: []string{fmt.Sprintf("%s:%d", v.File, v.Line)}}
		if v.Args != "" {
			c.Lines = append(c.Lines, "arguments "+v.Args)
		}
		if v.Served {
			c.Lines = append(c.Lines, "served: "+v.Summary)
			if s := v.savedText(); s != "" {
				c.Lines = append(c.Lines, s)
			}
		} else {
			c.Severity = "error"
			c.Lines = append(c.Lines, fmt.Sprintf("missed: %s: %s", v.Reason, v.Summary))
			if v.KeyA != "" || v.KeyB != "" {
				c.Lines = append(c.Lines, "keys: A "+nonEmpty(v.KeyA, "-")+", B "+nonEmpty(v.KeyB, "-"))
			}
			c.Lines = append(c.Lines, v.Changed...)
			if q := v.quoteLine(); q != "" {
				c.Lines = append(c.Lines, "said: "+q)
			}
			if cs := v.Cause; cs != nil {
				c.Causes = append(c.Causes, htmlCause{Kind: string(cs.Kind), Summary: cs.Summary + " (from the " + v.CauseFrom + ")", Evidence: cs.Evidence})
			}
			c.Advice = v.Advice
		}
		sec.Cards = append(sec.Cards, c)
	}
	p.Sections = []htmlSection{info, sec}
	if len(r.Settings)+len(r.Versions) > 0 {
		t := newTable(nil, "manifest", "A", "B")
		for _, d := range append(append([]Difference{}, r.Settings...), r.Versions...) {
			t.add(true, d.Name, d.A, d.B)
		}
		p.Sections = append(p.Sections, htmlSection{ID: "manifests", Title: "What the manifests say differently", Table: t})
	}
	if d := r.Dumps; d != nil {
		ds := htmlSection{ID: "dumps", Title: "The dumps compared"}
		for i, pr := range d.Pairs {
			if i == htmlMaxCards {
				break
			}
			ds.Cards = append(ds.Cards, pairCard(pr))
		}
		p.Sections = append(p.Sections, ds)
	}
	if len(r.Warnings) > 0 {
		p.Sections = append(p.Sections, htmlSection{ID: "warnings", Title: "Warnings", Items: r.Warnings})
	}
	return writePage(w, p)
}
