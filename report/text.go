package report

import (
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/recomp/recomp/cache"
	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/internal/lazyre"
)

// textOut is where the text format is written. printf shows every string argument with
// visible, so a control character from a log, a dump or a file name (a newline, an escape
// sequence, a carriage return) is printed as an escape instead of acting on the terminal or
// breaking a line; colour comes only from paint values, which only recomp's code makes: no
// text of a log can become a colour code, whatever characters it holds.
type textOut struct {
	w     io.Writer
	color bool
	err   error
}

// paint is text recomp colours: sgr is the SGR parameter of the colour.
type paint struct{ sgr, s string }

func bold(s string) paint { return paint{"1", s} }

// sev paints a severity or verdict: red for errors and failures, yellow for warnings.
func sev(s string) paint {
	switch s {
	case "error", "FAIL", "ERROR":
		return paint{"31", s}
	case "warning":
		return paint{"33", s}
	}
	return paint{"", s}
}

// printf writes a line or part of one: the format is recomp's, the arguments are shown
// with visible (strings, errors, Stringers and string kinds) or painted (paint).
func (o *textOut) printf(format string, args ...any) {
	for i, a := range args {
		args[i] = o.arg(a)
	}
	if o.err == nil {
		_, o.err = fmt.Fprintf(o.w, format, args...)
	}
}

// raw writes text that is already safe (a table row made of visible cells).
func (o *textOut) raw(s string) {
	if o.err == nil {
		_, o.err = io.WriteString(o.w, s)
	}
}

func (o *textOut) arg(a any) any {
	switch v := a.(type) {
	case paint:
		if !o.color || v.sgr == "" {
			return visible(v.s)
		}
		return "\x1b[" + v.sgr + "m" + visible(v.s) + "\x1b[0m"
	case string:
		return visible(v)
	case error:
		return visible(v.Error())
	}
	switch rv := reflect.ValueOf(a); rv.Kind() {
	case reflect.String:
		return visible(rv.String())
	case reflect.Struct, reflect.Pointer:
		if v, ok := a.(fmt.Stringer); ok {
			return visible(v.String())
		}
	}
	return a // numbers, a time.Duration among them, print as the verb says
}

// failureText is one gate failure on one line.
func failureText(f gate.Failure) string {
	what := f.Message
	if f.Family != "" {
		what = f.Family + ": " + what
	}
	if f.Hash != "" {
		what += " (hash " + f.Hash + ")"
	}
	if f.Duration > 0 {
		what += ", " + dur(f.Duration) + " lost"
	}
	if f.Reason != "" {
		what += "; " + f.Reason
	}
	return what
}

func gateStatus(g *gate.Result) string {
	switch {
	case g.Passed:
		return "PASS"
	case g.Inconclusive:
		return "ERROR"
	}
	return "FAIL"
}

// dumpID is how a line names a dumped module: its module_NNNN counter when the file name has
// one, else its (shortened) name.
func dumpID(path string) string {
	base := filepath.Base(path)
	id := shorten(base, 60)
	if m := dumpCounter.FindString(base); m != "" {
		id = m
	}
	if p := diff.ProcessDir(path); p != "" {
		return p + "/" + id // a module of one process of several (XLA numbers each one's from 0)
	}
	return id
}

var dumpCounter = lazyre.New(`^(\d+\.)?module_\d+`)

func kindCounts(r *diff.Result) string {
	counts := r.Counts // every change, listed or not
	if counts == nil {
		counts = map[diff.ChangeKind]int{}
		for _, c := range r.Changes {
			counts[c.Kind]++
		}
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
	}
	s := "(" + strings.Join(parts, ", ")
	if r.ChangeCount > len(r.Changes) {
		s += fmt.Sprintf(", first %d listed", len(r.Changes))
	}
	return s + ")"
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func kindsLine(m map[cache.EntryKind]int) string {
	var parts []string
	for _, k := range cache.Kinds() {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	return strings.Join(parts, ", ")
}

// writeText lays out a document as text for a terminal: the answer first, then the totals
// and the sections that are not detail, each table aligned and each card indented.
func writeText(w io.Writer, d *Document, color bool, width int) error {
	o := &textOut{w: w, color: color}
	o.printf("%s", bold(d.Title))
	if d.Status != "" {
		o.printf(" %s", sev(d.Status))
	}
	o.printf(": %s\n", d.Headline)
	if d.Cost != "" {
		o.printf("  %s\n", d.Cost)
	}
	if len(d.Answer) > 0 {
		o.printf("\n")
		for _, a := range d.Answer {
			for i, l := range wrapWords(a.Text, width-2) {
				if i == 0 {
					o.printf("%s %s\n", toneMark(a.Tone), l)
				} else {
					o.printf("  %s\n", l)
				}
			}
			if a.Action != "" {
				for i, l := range wrapWords(a.Action, width-6) {
					if i == 0 {
						o.printf("    → %s\n", l)
					} else {
						o.printf("      %s\n", l)
					}
				}
			}
		}
	}
	if len(d.Totals) > 0 {
		var parts []string
		for _, t := range d.Totals {
			parts = append(parts, t.Label+" "+t.Value)
		}
		o.printf("\n")
		for _, l := range wrapJoin(parts, " · ", 96) {
			o.printf("  %s\n", l)
		}
	}
	for _, sec := range d.Sections {
		if sec.Detail || sec.Timeline != nil {
			continue
		}
		o.printf("\n%s\n", bold(sec.Title))
		if sec.Note != "" {
			o.printf("  (%s)\n", sec.Note)
		}
		for _, c := range sec.Cards {
			writeCardText(o, c)
		}
		if t := sec.Table; t != nil && len(t.Rows) > 0 {
			tb := &table{}
			var head []string
			for _, h := range t.Head {
				head = append(head, strings.ToUpper(h.Text))
				tb.right = append(tb.right, h.Num)
			}
			tb.add(head...)
			for _, r := range t.Rows {
				var cells []string
				for _, c := range r.Cells {
					cells = append(cells, c.Text)
				}
				tb.add(cells...)
			}
			tb.write(o, "  ")
		}
		for _, it := range sec.Items {
			o.printf("  %s\n", it)
		}
	}
	for _, om := range d.Omitted {
		o.printf("\nleft out: %s\n", om)
	}
	return o.err
}

// toneMark marks a line of the answer: ✗ a program compiled again after warm-up, ! before,
// ✓ nothing to do.
func toneMark(tone string) paint {
	switch tone {
	case "bad":
		return paint{"31", "✗"}
	case "warn":
		return paint{"33", "!"}
	}
	return paint{"32", "✓"}
}

func writeCardText(o *textOut, c Card) {
	simple := len(c.Lines) <= 1 && len(c.Causes) == 0 && c.Advice == "" && len(c.Notes) == 0 && len(c.Same) == 0 && c.Diff == nil
	title := c.Title
	if simple {
		if len(c.Lines) == 1 {
			title += ": " + c.Lines[0]
		}
		o.printf("  %s %s\n", sev(c.Severity), title)
		return
	}
	o.printf("  %s %s\n", sev(c.Severity), bold(shorten(title, 120)))
	for _, l := range c.Lines {
		o.printf("    %s\n", l)
	}
	for _, cs := range c.Causes {
		o.printf("    %s: %s\n", sev(cs.Kind), cs.Summary)
		for _, ev := range cs.Evidence {
			o.printf("        %s\n", ev)
		}
		if cs.Advice != "" {
			o.printf("      advice: %s\n", cs.Advice)
		}
	}
	if c.Advice != "" {
		o.printf("    → %s\n", c.Advice)
	}
	for _, n := range c.Notes {
		o.printf("    note: %s\n", n)
	}
	if len(c.Same) > 0 {
		o.printf("    %s with the same cause (evidence and advice as above):\n", plural(len(c.Same), "more pair", "more pairs"))
		for _, s := range c.Same {
			o.printf("      %s\n", s)
		}
	}
	if c.Diff != nil && c.Diff.Text != "" {
		o.printf("\n")
		for _, l := range strings.SplitAfter(strings.TrimRight(c.Diff.Text, "\n"), "\n") {
			o.printf("      %s\n", strings.TrimSuffix(l, "\n"))
		}
	}
}

// wrapWords breaks s at spaces into lines of at most width characters (a word longer than
// width stays whole); width < 20 leaves s on one line.
func wrapWords(s string, width int) []string {
	if width < 20 || utf8.RuneCountInString(s) <= width {
		return []string{s}
	}
	var lines []string
	cur := ""
	for _, w := range strings.Split(s, " ") {
		switch {
		case cur == "":
			cur = w
		case utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(w) > width:
			lines = append(lines, cur)
			cur = w
		default:
			cur += " " + w
		}
	}
	return append(lines, cur)
}

// wrapJoin joins parts with sep into lines of at most width characters (a part longer than
// that gets a line of its own).
func wrapJoin(parts []string, sep string, width int) []string {
	var lines []string
	cur := ""
	for _, p := range parts {
		switch {
		case cur == "":
			cur = p
		case utf8.RuneCountInString(cur)+len(sep)+utf8.RuneCountInString(p) > width:
			lines = append(lines, cur)
			cur = p
		default:
			cur += sep + p
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}
