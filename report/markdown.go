package report

import (
	"fmt"
	"io"
	"strings"
)

// writeMarkdown lays out a document as Markdown for a CI comment or a run folder's report.md:
// the answer as a list, the totals as a one-row table, each section under its heading, the
// evidence and text diffs folded in <details>. Names and paths are code spans (mdCode), the
// rest prose with its markup escaped (mdText).
func writeMarkdown(w io.Writer, d *Document) error {
	ew := &errWriter{w: w}
	pf := func(format string, args ...any) { fmt.Fprintf(ew, format, args...) }
	if d.Status != "" {
		pf("## %s: %s\n\n", mdText(d.Title), mdText(d.Status))
	} else {
		pf("## %s\n\n", mdText(d.Title))
	}
	pf("%s\n\n", mdText(d.Headline))
	if d.Cost != "" {
		pf("**%s**\n\n", mdText(d.Cost))
	}
	for _, a := range d.Answer {
		pf("- %s %s\n", map[string]string{"bad": "❌", "warn": "⚠️", "ok": "✅"}[a.Tone], mdText(a.Text))
		if a.Action != "" {
			pf("  → %s\n", mdText(a.Action))
		}
	}
	if len(d.Answer) > 0 {
		pf("\n")
	}
	if len(d.Totals) > 0 {
		var head, rule, row []string
		for _, t := range d.Totals {
			head = append(head, mdText(t.Label))
			rule = append(rule, "---:")
			row = append(row, mdText(t.Value))
		}
		pf("| %s |\n|%s|\n| %s |\n\n", strings.Join(head, " | "), strings.Join(rule, "|"), strings.Join(row, " | "))
	}
	for _, sec := range d.Sections {
		writeSectionMarkdown(pf, sec)
	}
	for _, om := range d.Omitted {
		pf("_Left out: %s_\n\n", mdText(om))
	}
	return ew.err
}

// writeSectionMarkdown lays out one section under its heading: its note, cards, table and
// items (nothing for a timeline, which only HTML draws, or for a section with nothing to say).
func writeSectionMarkdown(pf func(string, ...any), sec Section) {
	if sec.Timeline != nil {
		return
	}
	empty := (sec.Table == nil || len(sec.Table.Rows) == 0) && len(sec.Cards) == 0 && len(sec.Items) == 0
	if empty && sec.Note == "" {
		return
	}
	pf("### %s\n\n", mdText(sec.Title))
	if sec.Note != "" {
		pf("_%s_\n\n", mdText(sec.Note))
	}
	for _, c := range sec.Cards {
		writeCardMarkdown(pf, c)
	}
	if t := sec.Table; t != nil && len(t.Rows) > 0 {
		writeTableMarkdown(pf, t)
	}
	for _, it := range sec.Items {
		if sec.Code {
			pf("- %s\n", mdCode(it, false))
		} else {
			pf("- %s\n", mdText(it))
		}
	}
	if len(sec.Items) > 0 {
		pf("\n")
	}
}

// writeTableMarkdown lays out a table, its first column as code spans.
func writeTableMarkdown(pf func(string, ...any), t *Table) {
	var head, rule []string
	for _, h := range t.Head {
		head = append(head, mdText(h.Text))
		if h.Num {
			rule = append(rule, "---:")
		} else {
			rule = append(rule, "---")
		}
	}
	pf("| %s |\n|%s|\n", strings.Join(head, " | "), strings.Join(rule, "|"))
	for _, r := range t.Rows {
		var cells []string
		for i, c := range r.Cells {
			switch {
			case c.Text == "":
				cells = append(cells, " ")
			case i == 0:
				cells = append(cells, mdCode(c.Text, true))
			default:
				cells = append(cells, mdText(c.Text))
			}
		}
		pf("| %s |\n", strings.Join(cells, " | "))
	}
	pf("\n")
}

func writeCardMarkdown(pf func(string, ...any), c Card) {
	pf("- **%s** %s\n", mdText(c.Severity), mdText(c.Title))
	for _, l := range c.Lines {
		pf("  %s  \n", mdText(l))
	}
	for _, cs := range c.Causes {
		pf("  - `%s` %s\n", strings.ReplaceAll(cs.Kind, "`", "'"), mdText(cs.Summary))
		if len(cs.Evidence) > 0 || cs.Advice != "" {
			pf("    <details><summary>evidence and advice</summary>\n\n")
			for _, ev := range cs.Evidence {
				pf("    - %s\n", mdCode(ev, false))
			}
			if cs.Advice != "" {
				pf("\n    **Advice:** %s\n", mdText(cs.Advice))
			}
			pf("\n    </details>\n")
		}
	}
	if c.Advice != "" {
		pf("  → %s\n", mdText(c.Advice))
	}
	for _, n := range c.Notes {
		pf("  - _note:_ %s\n", mdText(n))
	}
	if len(c.Same) > 0 {
		pf("  - %s with the same cause:\n", plural(len(c.Same), "more pair", "more pairs"))
		for _, s := range c.Same {
			pf("    - %s\n", mdCode(s, false))
		}
	}
	if c.Diff != nil && c.Diff.Text != "" {
		lines := strings.Split(strings.TrimRight(c.Diff.Text, "\n"), "\n")
		fence := "```"
		for strings.Contains(c.Diff.Text, fence) {
			fence += "`"
		}
		pf("\n  <details><summary>text diff</summary>\n\n  %sdiff\n", fence)
		for _, l := range lines {
			pf("  %s\n", visible(l))
		}
		pf("  %s\n\n  </details>\n", fence)
	}
	pf("\n")
}
