package report

import (
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/recomp/recomp/cache"
	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/ledger"
)

// textRenderer writes the text format for people. Colour (on a terminal) comes from paint
// values only; see textOut.
type textRenderer struct{ color bool }

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

func (t textRenderer) out(w io.Writer) *textOut { return &textOut{w: w, color: t.color} }

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

func (t textRenderer) scan(w io.Writer, s *Scan) error {
	o := t.out(w)
	t.scanTo(o, s)
	return o.err
}

func (t textRenderer) scanTo(w *textOut, s *Scan) {
	var lines int
	var bytes int64
	warnings := 0
	for _, in := range s.Inputs {
		lines += in.Lines
		bytes += in.Bytes
		warnings += in.WarningCount
	}
	sm := s.Ledger.Summary
	w.printf("%s: %s, %s, %s", bold("recomp scan"), plural(len(s.Inputs), "input", "inputs"),
		plural(lines, "line", "lines"), humanBytes(bytes))
	if s.SameProcess && len(s.Inputs) > 1 {
		w.printf(" (one process)")
	}
	w.printf("\n")
	w.printf("  compile requests %d, compilations %d (%s), cache hits %d, misses %d, writes %d\n",
		sm.CompileRequests, sm.Compilations, dur(sm.CompileTime), sm.CacheHits, sm.CacheMisses, sm.CacheWrites)
	w.printf("  executable loads %d (%s), recompilations %d", sm.ExecutableLoads, dur(sm.LoadTime), sm.Recompilations)
	if sm.Retraces > 0 {
		w.printf(", retraces %d", sm.Retraces)
	}
	w.printf("\n")
	if sm.EagerCompilations > 0 {
		w.printf("  of the compilations, %d were eager one-op programs\n", sm.EagerCompilations)
	}
	if sm.MetricCompileTime {
		w.printf("  compile time from the framework's metrics report, spread evenly over the compilations\n")
	}
	w.printf("  after warm-up: %s, %s\n", plural(sm.AfterWarmup, "compilation", "compilations"),
		plural(sm.LoadsAfterWarmup, "executable load", "executable loads"))
	if len(s.Inputs) > 1 {
		w.printf("\n")
		tb := &table{right: []bool{false, true, true, true}}
		tb.add("INPUT", "LINES", "EVENTS", "WARNINGS")
		for _, in := range s.Inputs {
			tb.add(in.Path, strconv.Itoa(in.Lines), strconv.Itoa(in.Events), strconv.Itoa(in.WarningCount))
		}
		tb.write(w, "")
	}
	if len(s.Ledger.Modules) > 0 {
		w.printf("\n")
		tb := &table{right: []bool{false, true, true, true, true, true, true}}
		tb.add("MODULE FAMILY", "REQUESTS", "COMPILED", "HITS", "MISSES", "TIME", "HASHES")
		for _, m := range s.Ledger.Modules {
			hashes := "-"
			if m.HashCount > 0 {
				hashes = countString(m.HashCount, len(m.Hashes))
			}
			name := shorten(m.Family, 56)
			if m.Eager && m.Compilations > 0 {
				name = shorten(m.Family, 48) + " (eager)"
			}
			tb.add(name, strconv.Itoa(m.CompileRequests), strconv.Itoa(m.Compilations),
				strconv.Itoa(m.CacheHits), strconv.Itoa(m.CacheMisses), dur(m.CompileTime), hashes)
		}
		tb.write(w, "")
	}
	writeFindingsText(w, s.Ledger.Findings)
	if warnings > 0 {
		w.printf("\n%s\n", plural(warnings, "warning", "warnings"))
		for _, in := range s.Inputs {
			for _, wn := range in.Warnings {
				w.printf("  %s:%d: %s\n", in.Path, wn.Line, wn.Message)
			}
			if in.WarningCount > len(in.Warnings) {
				w.printf("  %s: %d more not shown\n", in.Path, in.WarningCount-len(in.Warnings))
			}
		}
	}
}

func countString(n, listed int) string {
	if n > listed {
		return ">" + strconv.Itoa(listed)
	}
	return strconv.Itoa(n)
}

func writeFindingsText(w *textOut, fs []ledger.Finding) {
	if len(fs) == 0 {
		return
	}
	w.printf("\n")
	for _, f := range fs {
		loc := ""
		if f.File != "" {
			loc = fmt.Sprintf(" (%s:%d)", f.File, f.Line)
		}
		w.printf("%s %s: %s%s\n", sev(string(f.Severity)), f.Kind, f.Message, loc)
		if f.Advice != "" {
			w.printf("  advice: %s\n", f.Advice)
		}
	}
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

func (t textRenderer) guard(w io.Writer, g *Guard) error {
	o := t.out(w)
	t.guardTo(o, g)
	return o.err
}

func (t textRenderer) guardTo(w *textOut, g *Guard) {
	v := gateStatus(g.Gate)
	w.printf("%s %s: %s\n", bold("recomp guard"), sev(v), g.Gate.Reason)
	for _, pr := range g.Gate.Problems {
		w.printf("  problem: %s\n", pr)
	}
	for _, f := range g.Gate.Failures {
		w.printf("  %s:%d: %s\n", f.File, f.Line, failureText(f))
	}
	if n := g.Gate.Compilations + g.Gate.LoadFailures; n > len(g.Gate.Failures) {
		w.printf("  … %d more not listed (--format json lists the first %d)\n", n-len(g.Gate.Failures), ledger.MaxListed)
	}
}

func causeLabel(kind diff.CauseKind) string {
	if kind == diff.CauseIdentical {
		return "identical"
	}
	return "cause " + string(kind)
}

func (t textRenderer) diff(w io.Writer, d *Diff) error {
	o := t.out(w)
	t.diffTo(o, d)
	return o.err
}

func (t textRenderer) diffTo(w *textOut, d *Diff) {
	same, differ := d.Counts()
	w.printf("%s: %s compared, %d differ, %d identical", bold("recomp "+d.command()), plural(len(d.Pairs), "pair", "pairs"), differ, same)
	if n := len(d.UnpairedA) + len(d.UnpairedB); n > 0 {
		w.printf(", %d unpaired", n)
	}
	if n := len(d.Problems); n > 0 {
		w.printf(", %s", plural(n, "unreadable module", "unreadable modules"))
	}
	w.printf("\n")
	if len(d.Families) > 0 {
		w.printf("\nmodule families in the dump:\n")
	}
	for _, f := range d.Families {
		w.printf("  %s: %s", shorten(f.Family, 80), plural(len(f.Files), "dump", "dumps"))
		if f.LogCompilations > 0 {
			w.printf(", compiled %d times in the log", f.LogCompilations)
			if len(f.LogHashes) > 0 {
				w.printf(" (hashes %s)", joinOr(f.LogHashes, "-"))
			}
		}
		w.printf("\n")
	}
	identicalAdvice := ""
	for i := 0; i < len(d.Pairs); {
		pr := d.Pairs[i]
		if a := t.pair(w, pr); a != "" {
			identicalAdvice = a
		}
		// The pairs after it that say the same again (a learning rate that changes every
		// step) get a line each.
		j := i + 1
		for j < len(d.Pairs) && sameStory(pr, d.Pairs[j]) {
			j++
		}
		if j > i+1 {
			w.printf("  %s with the same cause (evidence and advice as above):\n", plural(j-i-1, "more pair", "more pairs"))
			for _, q := range d.Pairs[i+1 : j] {
				w.printf("    %s → %s: %s\n", dumpID(q.A.Path), dumpID(q.B.Path), q.Result.Causes[0].Summary)
			}
		}
		i = j
	}
	if identicalAdvice != "" {
		w.printf("\nadvice for the identical pairs: %s\n", identicalAdvice)
	}
	if len(d.UnpairedA)+len(d.UnpairedB) > 0 {
		w.printf("\nunpaired (no module of the same family and stage on the other side):\n")
		for _, f := range d.UnpairedA {
			w.printf("  only in A: %s\n", f)
		}
		for _, f := range d.UnpairedB {
			w.printf("  only in B: %s\n", f)
		}
	}
	if len(d.Problems) > 0 {
		w.printf("\n%s (compared without them):\n", plural(len(d.Problems), "module could not be read", "modules could not be read"))
		for _, pr := range d.Problems {
			w.printf("  %s\n", pr)
		}
	}
	for _, wn := range d.Warnings {
		w.printf("warning: %s\n", wn)
	}
}

// dumpID is how a line names a dumped module: its module_NNNN counter when the file name has
// one, else its (shortened) name.
func dumpID(path string) string {
	base := filepath.Base(path)
	if m := dumpCounter.FindString(base); m != "" {
		return m
	}
	return shorten(base, 60)
}

var dumpCounter = regexp.MustCompile(`^(\d+\.)?module_\d+`)

// sameStory says whether pair b tells what pair a told: the same program, the same causes in
// the same order with the same advice, none of them identical.
func sameStory(a, b *DiffPair) bool {
	ca, cb := a.Result.Causes, b.Result.Causes
	if a.Label() != b.Label() || len(ca) != len(cb) || len(ca) == 0 || a.Result.Identical || b.Result.Identical || b.Text != nil {
		return false
	}
	for i := range ca {
		if ca[i].Kind != cb[i].Kind || ca[i].Advice != cb[i].Advice {
			return false
		}
	}
	return true
}

// pair writes one compared pair; it returns the advice of an identical pair, which the report
// says once, at its end.
func (t textRenderer) pair(w *textOut, pr *DiffPair) (identicalAdvice string) {
	r := pr.Result
	w.printf("\n%s\n  %s\n  %s\n", bold(shorten(pr.Label(), 100)), pr.A.Path, pr.B.Path)
	if pr.HashA != "" || pr.HashB != "" {
		w.printf("  log hashes: %s → %s\n", nonEmpty(pr.HashA, "?"), nonEmpty(pr.HashB, "?"))
	}
	for _, c := range r.Causes {
		w.printf("  %s: %s\n", sev(causeLabel(c.Kind)), c.Summary)
		for _, ev := range c.Evidence {
			w.printf("      %s\n", ev)
		}
		switch {
		case c.Kind == diff.CauseIdentical:
			identicalAdvice = c.Advice
		case c.Advice != "":
			w.printf("    advice: %s\n", c.Advice)
		}
	}
	for _, n := range r.Notes {
		w.printf("  note: %s\n", n)
	}
	if !r.Identical {
		w.printf("  %d change(s) %s; %d instructions matched, %d added, %d removed\n", r.ChangeCount,
			kindCounts(r), r.Matched, r.Added, r.Removed)
	}
	if pr.Text != nil && pr.Text.Text != "" {
		w.printf("\n")
		for _, l := range strings.SplitAfter(strings.TrimRight(pr.Text.Text, "\n"), "\n") {
			w.printf("    %s\n", strings.TrimSuffix(l, "\n"))
		}
		for _, n := range pr.Text.Notes {
			w.printf("    (%s)\n", n)
		}
	}
	return identicalAdvice
}

func kindCounts(r *diff.Result) string {
	counts := r.Counts // every change, listed or not
	if counts == nil {
		counts = map[diff.ChangeKind]int{}
		for _, c := range r.Changes {
			counts[c.Kind]++
		}
	}
	var parts []string
	for _, k := range sortedKinds(counts) {
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

func (t textRenderer) cache(w io.Writer, c *Cache) error {
	o := t.out(w)
	t.cacheTo(o, c)
	return o.err
}

func (t textRenderer) cacheTo(w *textOut, c *Cache) {
	inv := c.Inventory
	w.printf("recomp cache: %s, %s (%s)\n", plural(inv.Count, "entry", "entries"), humanBytes(inv.Bytes), kindsLine(inv.ByKind))
	if c.LogsGiven {
		w.printf("  not used by the given runs: %s, %s\n", plural(inv.Unused, "entry", "entries"), humanBytes(inv.UnusedBytes))
	}
	if inv.Foreign > 0 {
		w.printf("  %s that %s not cache entries (never proposed for removal)\n", plural(inv.Foreign, "file", "files"),
			map[bool]string{true: "is", false: "are"}[inv.Foreign == 1])
	}
	if len(inv.Entries) > 0 {
		w.printf("\n")
		tb := &table{right: []bool{false, false, true, false, false}}
		tb.add("ENTRY", "KIND", "SIZE", "MODIFIED", "STATUS")
		for _, e := range inv.Entries {
			tb.add(ShellQuote(e.Dir+"/"+e.Name), string(e.Kind), humanBytes(e.Size), e.ModTime.UTC().Format("2006-01-02T15:04:05Z"),
				entryStatus(e, c.LogsGiven))
		}
		tb.write(w, "")
	}
	if shown := len(inv.Entries); shown < inv.Count {
		w.printf("  (%d more entries counted, not listed)\n", inv.Count-shown)
	}
	for _, m := range inv.MissingMisses {
		w.printf("missed and still absent: %s (the run looked for it and never wrote it: was the compile interrupted or the cache read-only?)\n", m)
	}
	for _, wn := range inv.Warnings {
		w.printf("warning: %s\n", wn)
	}
	if cmd := PruneCommand(c); cmd != "" {
		w.printf("\nrecomp never deletes anything. To remove the listed entries these runs did not use:\n  %s\n", cmd)
	}
}

func kindsLine(m map[cache.EntryKind]int) string {
	var parts []string
	for _, k := range []cache.EntryKind{cache.EntryTFIPU, cache.EntryTFIPUOld, cache.EntryPopEF, cache.EntryPopARTOld, cache.EntryJAX, cache.EntryLock, cache.EntryOther} {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	return strings.Join(parts, ", ")
}
