package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/hlo"
	"github.com/sergi/go-diff/diffmatchpatch"
)

type diffCmd struct {
	Format string `enum:"text,json,markdown" default:"text" help:"Output format: text, json or markdown."`
	Text   bool   `help:"Add a unified text diff of each changed computation."`
	Stage  string `help:"Dump stage to compare: before, after, or a stage name (default: before_optimizations when present)." placeholder:"STAGE"`
	A      string `arg:"" name:"A" help:"HLO file or XLA dump folder of the first run."`
	B      string `arg:"" name:"B" help:"HLO file or XLA dump folder of the second run."`
}

func (c *diffCmd) Run(e *env) error {
	da, err := diff.LoadDump(c.A, diff.LoadOptions{Stage: c.Stage})
	if err != nil {
		return usageErr("%v", err)
	}
	db, err := diff.LoadDump(c.B, diff.LoadOptions{Stage: c.Stage})
	if err != nil {
		return usageErr("%v", err)
	}
	dd := diff.Dumps(da, db)
	doc := diffDocument(dd.Pairs, dd.UnpairedA, dd.UnpairedB, c.Text)
	if err := renderDiff(e, c.Format, "recomp diff", doc); err != nil {
		return err
	}
	if dd.Differs() {
		return found
	}
	return nil
}

// JSON document of diff and explain (DESIGN.md's contract, version 1).

type diffJSON struct {
	Version  int          `json:"version"`
	Pairs    []pairJSON   `json:"pairs"`
	Unpaired unpairedJSON `json:"unpaired"`
	Families []familyJSON `json:"families,omitempty"`
}

type unpairedJSON struct {
	A []string `json:"a"`
	B []string `json:"b"`
}

type pairJSON struct {
	A           string       `json:"a"`
	B           string       `json:"b"`
	Module      string       `json:"module"`
	Family      string       `json:"family"`
	PairedBy    string       `json:"paired_by"`
	Identical   bool         `json:"identical"`
	HashA       string       `json:"hash_a,omitempty"`
	HashB       string       `json:"hash_b,omitempty"`
	Matched     int          `json:"matched_instructions"`
	Added       int          `json:"added_instructions"`
	Removed     int          `json:"removed_instructions"`
	ChangeCount int          `json:"change_count"`
	Changes     []changeJSON `json:"changes"`
	Causes      []causeJSON  `json:"causes"`
	Notes       []string     `json:"notes"`
	TextDiff    string       `json:"text_diff,omitempty"`
}

type changeJSON struct {
	Kind        string `json:"kind"`
	Computation string `json:"computation"`
	Instruction string `json:"instruction"`
	OpName      string `json:"op_name"`
	Source      string `json:"source,omitempty"`
	Attribute   string `json:"attribute,omitempty"`
	Parameter   *int   `json:"parameter,omitempty"`
	Old         string `json:"old"`
	New         string `json:"new"`
	LineA       int    `json:"line_a,omitempty"`
	LineB       int    `json:"line_b,omitempty"`
}

type causeJSON struct {
	Kind     string   `json:"kind"`
	Summary  string   `json:"summary"`
	Evidence []string `json:"evidence"`
	Advice   string   `json:"advice"`
}

type familyJSON struct {
	Family          string   `json:"family"`
	Files           []string `json:"files"`
	LogCompilations int      `json:"log_compilations"`
	LogHashes       []string `json:"log_hashes"`
}

func diffDocument(pairs []*diff.Pair, ua, ub []*diff.DumpFile, text bool) diffJSON {
	doc := diffJSON{Version: jsonVersion, Pairs: []pairJSON{}, Unpaired: unpairedJSON{A: []string{}, B: []string{}}}
	for _, p := range pairs {
		doc.Pairs = append(doc.Pairs, pairDocument(p, text))
	}
	for _, f := range ua {
		doc.Unpaired.A = append(doc.Unpaired.A, f.Path)
	}
	for _, f := range ub {
		doc.Unpaired.B = append(doc.Unpaired.B, f.Path)
	}
	return doc
}

func pairDocument(p *diff.Pair, text bool) pairJSON {
	r := p.Result
	pj := pairJSON{A: p.A.Path, B: p.B.Path, Module: p.B.Module.Name, Family: p.B.Family, PairedBy: p.PairedBy,
		Identical: r.Identical, Matched: r.Matched, Added: r.Added, Removed: r.Removed, ChangeCount: r.ChangeCount,
		Changes: []changeJSON{}, Causes: []causeJSON{}, Notes: nonNil(r.Notes)}
	for _, ch := range r.Changes {
		cj := changeJSON{Kind: ch.Kind, Computation: ch.Computation, Instruction: ch.Instruction, OpName: ch.OpName,
			Source: ch.Source, Attribute: ch.Attr, Old: ch.Old, New: ch.New, LineA: ch.LineA, LineB: ch.LineB}
		if ch.Param >= 0 && ch.Entry {
			n := ch.Param
			cj.Parameter = &n
		}
		pj.Changes = append(pj.Changes, cj)
	}
	for _, c := range r.Causes {
		pj.Causes = append(pj.Causes, causeJSON{Kind: c.Kind, Summary: c.Summary, Evidence: nonNil(c.Evidence), Advice: c.Advice})
	}
	if text && !r.Identical {
		pj.TextDiff = textDiff(r)
	}
	return pj
}

// textDiff renders a unified line diff of each computation that changed (at most 5).
func textDiff(r *diff.Result) string {
	var names []string
	seen := map[string]bool{}
	for _, ch := range r.Changes {
		if ch.Computation != "" && !seen[ch.Computation] {
			seen[ch.Computation] = true
			names = append(names, ch.Computation)
		}
	}
	var b strings.Builder
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0
	for i, name := range names {
		if i == 5 {
			fmt.Fprintf(&b, "… %d more changed computations\n", len(names)-5)
			break
		}
		cb := r.B.Computation(name)
		ca := pairedComputation(r, name)
		var ta, tb strings.Builder
		if ca != nil {
			hlo.PrintComputation(&ta, ca)
		}
		if cb != nil {
			hlo.PrintComputation(&tb, cb)
		} else {
			cb = r.A.Computation(name)
		}
		a, bb, lines := dmp.DiffLinesToChars(ta.String(), tb.String())
		diffs := dmp.DiffCharsToLines(dmp.DiffMain(a, bb, false), lines)
		fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", nameOr(ca), nameOr(cb))
		writeUnified(&b, diffs)
	}
	return b.String()
}

// pairedComputation finds the computation of A that holds the changes reported under name.
func pairedComputation(r *diff.Result, name string) *hlo.Computation {
	if c := r.A.Computation(name); c != nil {
		return c
	}
	if r.B.Entry != nil && r.B.Entry.Name == name {
		return r.A.Entry
	}
	if cb := r.B.Computation(name); cb != nil {
		for _, ca := range r.A.Computations {
			if hlo.Family(ca.Name) == hlo.Family(cb.Name) {
				return ca
			}
		}
	}
	return nil
}

func nameOr(c *hlo.Computation) string {
	if c == nil {
		return "(none)"
	}
	return c.Name
}

// writeUnified prints diffs with three lines of context around each change.
func writeUnified(w io.Writer, diffs []diffmatchpatch.Diff) {
	const ctx = 3
	for i, d := range diffs {
		lines := strings.SplitAfter(d.Text, "\n")
		if len(lines) > 0 && lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		switch d.Type {
		case diffmatchpatch.DiffInsert:
			for _, l := range lines {
				fmt.Fprint(w, "+"+withNewline(l))
			}
		case diffmatchpatch.DiffDelete:
			for _, l := range lines {
				fmt.Fprint(w, "-"+withNewline(l))
			}
		default:
			head, tail := ctx, ctx
			if i == 0 {
				head = 0
			}
			if i == len(diffs)-1 {
				tail = 0
			}
			if len(lines) <= head+tail {
				for _, l := range lines {
					fmt.Fprint(w, " "+withNewline(l))
				}
				continue
			}
			for _, l := range lines[:tail] {
				fmt.Fprint(w, " "+withNewline(l))
			}
			fmt.Fprintf(w, "@@ %d unchanged lines @@\n", len(lines)-head-tail)
			for _, l := range lines[len(lines)-head:] {
				fmt.Fprint(w, " "+withNewline(l))
			}
		}
	}
}

func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

func renderDiff(e *env, format, title string, doc diffJSON) error {
	switch format {
	case "json":
		return writeJSON(e.stdout, doc)
	case "markdown":
		writeDiffMarkdown(e.stdout, title, doc)
	default:
		writeDiffText(e.stdout, title, doc, painter{e.color})
	}
	return nil
}

func diffCounts(doc diffJSON) (identical, differ int) {
	for _, p := range doc.Pairs {
		if p.Identical {
			identical++
		} else {
			differ++
		}
	}
	return
}

func writeDiffText(w io.Writer, title string, doc diffJSON, p painter) {
	same, differ := diffCounts(doc)
	fmt.Fprintf(w, "%s: %s compared, %d differ, %d identical", p.bold(title), plural(len(doc.Pairs), "pair", "pairs"), differ, same)
	if n := len(doc.Unpaired.A) + len(doc.Unpaired.B); n > 0 {
		fmt.Fprintf(w, ", %d unpaired", n)
	}
	fmt.Fprintln(w)
	if len(doc.Families) > 0 {
		fmt.Fprintln(w, "\nmodule families in the dump:")
	}
	for _, f := range doc.Families {
		fmt.Fprintf(w, "  %s: %s", shorten(f.Family, 80), plural(len(f.Files), "dump", "dumps"))
		if f.LogCompilations > 0 {
			fmt.Fprintf(w, ", compiled %d times in the log", f.LogCompilations)
			if len(f.LogHashes) > 0 {
				fmt.Fprintf(w, " (hashes %s)", joinOr(f.LogHashes, "-"))
			}
		}
		fmt.Fprintln(w)
	}
	for _, pr := range doc.Pairs {
		fmt.Fprintf(w, "\n%s\n  %s\n  %s\n", p.bold(shorten(pr.Family, 100)), pr.A, pr.B)
		if pr.HashA != "" || pr.HashB != "" {
			fmt.Fprintf(w, "  log hashes: %s → %s\n", nonEmptyStr(pr.HashA, "?"), nonEmptyStr(pr.HashB, "?"))
		}
		for _, c := range pr.Causes {
			fmt.Fprintf(w, "  %s: %s\n", p.sev(causeLabel(c.Kind)), c.Summary)
			for _, ev := range c.Evidence {
				fmt.Fprintf(w, "      %s\n", ev)
			}
			if c.Advice != "" {
				fmt.Fprintf(w, "    advice: %s\n", c.Advice)
			}
		}
		for _, n := range pr.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
		if !pr.Identical {
			fmt.Fprintf(w, "  %d change(s) %s; %d instructions matched, %d added, %d removed\n", pr.ChangeCount,
				kindCounts(pr.Changes, pr.ChangeCount), pr.Matched, pr.Added, pr.Removed)
		}
		if pr.TextDiff != "" {
			fmt.Fprintln(w)
			for _, l := range strings.SplitAfter(strings.TrimRight(pr.TextDiff, "\n"), "\n") {
				fmt.Fprint(w, "    "+withNewline(l))
			}
		}
	}
	if len(doc.Unpaired.A)+len(doc.Unpaired.B) > 0 {
		fmt.Fprintf(w, "\nunpaired (no module of the same family and stage on the other side):\n")
		for _, f := range doc.Unpaired.A {
			fmt.Fprintf(w, "  only in A: %s\n", f)
		}
		for _, f := range doc.Unpaired.B {
			fmt.Fprintf(w, "  only in B: %s\n", f)
		}
	}
}

func causeLabel(kind string) string {
	if kind == diff.CauseIdentical {
		return "identical"
	}
	return "cause " + kind
}

func kindCounts(changes []changeJSON, total int) string {
	counts := map[string]int{}
	for _, c := range changes {
		counts[c.Kind]++
	}
	var keys []string
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
	}
	s := "(" + strings.Join(parts, ", ")
	if total > len(changes) {
		s += fmt.Sprintf(", first %d listed", len(changes))
	}
	return s + ")"
}

func nonEmptyStr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func writeDiffMarkdown(w io.Writer, title string, doc diffJSON) {
	same, differ := diffCounts(doc)
	fmt.Fprintf(w, "## %s\n\n%d pair(s) compared: %d differ, %d identical, %d unpaired.\n\n", title, len(doc.Pairs), differ, same,
		len(doc.Unpaired.A)+len(doc.Unpaired.B))
	for _, pr := range doc.Pairs {
		fmt.Fprintf(w, "### `%s`\n\n`%s` → `%s`\n\n| cause | summary |\n|---|---|\n", mdEscape(pr.Family), mdEscape(pr.A), mdEscape(pr.B))
		for _, c := range pr.Causes {
			fmt.Fprintf(w, "| %s | %s |\n", c.Kind, mdEscape(c.Summary))
		}
		fmt.Fprintln(w)
		for _, c := range pr.Causes {
			if len(c.Evidence) == 0 && c.Advice == "" {
				continue
			}
			fmt.Fprintf(w, "<details><summary>%s: evidence and advice</summary>\n\n", c.Kind)
			for _, ev := range c.Evidence {
				fmt.Fprintf(w, "- `%s`\n", mdEscape(ev))
			}
			fmt.Fprintf(w, "\n**Advice:** %s\n\n</details>\n\n", mdEscape(c.Advice))
		}
	}
	for _, f := range doc.Unpaired.A {
		fmt.Fprintf(w, "- only in A: `%s`\n", mdEscape(f))
	}
	for _, f := range doc.Unpaired.B {
		fmt.Fprintf(w, "- only in B: `%s`\n", mdEscape(f))
	}
}
