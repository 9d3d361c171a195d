package report

import (
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/recomp/recomp/cache"
	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/ledger"
)

type textRenderer struct{ p painter }

func (t textRenderer) scan(w io.Writer, s *Scan) error {
	p := t.p
	var lines int
	var bytes int64
	warnings := 0
	for _, in := range s.Inputs {
		lines += in.Lines
		bytes += in.Bytes
		warnings += in.WarningCount
	}
	sm := s.Ledger.Summary
	fmt.Fprintf(w, "%s: %s, %s, %s", p.bold("recomp scan"), plural(len(s.Inputs), "input", "inputs"),
		plural(lines, "line", "lines"), humanBytes(bytes))
	if s.SameProcess && len(s.Inputs) > 1 {
		fmt.Fprint(w, " (one process)")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  compile requests %d, compilations %d (%s), cache hits %d, misses %d, writes %d\n",
		sm.CompileRequests, sm.Compilations, dur(sm.CompileTime), sm.CacheHits, sm.CacheMisses, sm.CacheWrites)
	fmt.Fprintf(w, "  executable loads %d (%s), recompilations %d", sm.ExecutableLoads, dur(sm.LoadTime), sm.Recompilations)
	if sm.Retraces > 0 {
		fmt.Fprintf(w, ", retraces %d", sm.Retraces)
	}
	fmt.Fprintln(w)
	if sm.EagerCompilations > 0 {
		fmt.Fprintf(w, "  of the compilations, %d were eager one-op programs\n", sm.EagerCompilations)
	}
	if sm.MetricCompileTime {
		fmt.Fprintf(w, "  compile time from the framework's metrics report, spread evenly over the compilations\n")
	}
	fmt.Fprintf(w, "  after warm-up: %s, %s\n", plural(sm.AfterWarmup, "compilation", "compilations"),
		plural(sm.LoadsAfterWarmup, "executable load", "executable loads"))
	if len(s.Inputs) > 1 {
		fmt.Fprintln(w)
		tb := &table{right: []bool{false, true, true, true}}
		tb.add("INPUT", "LINES", "EVENTS", "WARNINGS")
		for _, in := range s.Inputs {
			tb.add(in.Path, strconv.Itoa(in.Lines), strconv.Itoa(in.Events), strconv.Itoa(in.WarningCount))
		}
		tb.write(w, "")
	}
	if len(s.Ledger.Modules) > 0 {
		fmt.Fprintln(w)
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
	writeFindingsText(w, s.Ledger.Findings, p)
	if warnings > 0 {
		fmt.Fprintf(w, "\n%s\n", plural(warnings, "warning", "warnings"))
		for _, in := range s.Inputs {
			for _, wn := range in.Warnings {
				fmt.Fprintf(w, "  %s:%d: %s\n", in.Path, wn.Line, wn.Message)
			}
			if in.WarningCount > len(in.Warnings) {
				fmt.Fprintf(w, "  %s: %d more not shown\n", in.Path, in.WarningCount-len(in.Warnings))
			}
		}
	}
	return nil
}

func countString(n, listed int) string {
	if n > listed {
		return ">" + strconv.Itoa(listed)
	}
	return strconv.Itoa(n)
}

func writeFindingsText(w io.Writer, fs []ledger.Finding, p painter) {
	if len(fs) == 0 {
		return
	}
	fmt.Fprintln(w)
	for _, f := range fs {
		loc := ""
		if f.File != "" {
			loc = fmt.Sprintf(" (%s:%d)", f.File, f.Line)
		}
		fmt.Fprintf(w, "%s %s: %s%s\n", p.sev(string(f.Severity)), f.Kind, f.Message, loc)
		if f.Advice != "" {
			fmt.Fprintf(w, "  advice: %s\n", f.Advice)
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

func verdict(g *gate.Result) string {
	switch {
	case g.Passed:
		return "PASS"
	case g.Inconclusive:
		return "ERROR"
	}
	return "FAIL"
}

func (t textRenderer) guard(w io.Writer, g *Guard) error {
	p := t.p
	v := verdict(g.Gate)
	fmt.Fprintf(w, "%s %s: %s\n", p.bold("recomp guard"), p.sev(v), g.Gate.Reason)
	for _, pr := range g.Gate.Problems {
		fmt.Fprintf(w, "  problem: %s\n", pr)
	}
	for _, f := range g.Gate.Failures {
		fmt.Fprintf(w, "  %s:%d: %s\n", f.File, f.Line, failureText(f))
	}
	if n := g.Gate.Compilations + g.Gate.LoadFailures + g.Gate.Divergences; n > len(g.Gate.Failures) {
		fmt.Fprintf(w, "  … %d more not listed (--format json lists the first %d)\n", n-len(g.Gate.Failures), ledger.MaxListed)
	}
	writeGuardExtrasText(w, g, p)
	return nil
}

func causeLabel(kind diff.CauseKind) string {
	if kind == diff.CauseIdentical {
		return "identical"
	}
	return "cause " + string(kind)
}

func (t textRenderer) diff(w io.Writer, d *Diff) error {
	p := t.p
	same, differ := d.Counts()
	fmt.Fprintf(w, "%s: %s compared, %d differ, %d identical", p.bold("recomp "+d.command()), plural(len(d.Pairs), "pair", "pairs"), differ, same)
	if n := len(d.UnpairedA) + len(d.UnpairedB); n > 0 {
		fmt.Fprintf(w, ", %d unpaired", n)
	}
	if n := len(d.Problems); n > 0 {
		fmt.Fprintf(w, ", %s", plural(n, "unreadable module", "unreadable modules"))
	}
	fmt.Fprintln(w)
	if len(d.Families) > 0 {
		fmt.Fprintln(w, "\nmodule families in the dump:")
	}
	for _, f := range d.Families {
		fmt.Fprintf(w, "  %s: %s", shorten(f.Family, 80), plural(len(f.Files), "dump", "dumps"))
		if f.LogCompilations > 0 {
			fmt.Fprintf(w, ", compiled %d times in the log", f.LogCompilations)
			if len(f.LogHashes) > 0 {
				fmt.Fprintf(w, " (hashes %s)", joinOr(f.LogHashes, "-"))
			}
		}
		fmt.Fprintln(w)
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
			fmt.Fprintf(w, "  %s with the same cause (evidence and advice as above):\n", plural(j-i-1, "more pair", "more pairs"))
			for _, q := range d.Pairs[i+1 : j] {
				fmt.Fprintf(w, "    %s → %s: %s\n", dumpID(q.A.Path), dumpID(q.B.Path), q.Result.Causes[0].Summary)
			}
		}
		i = j
	}
	if identicalAdvice != "" {
		fmt.Fprintf(w, "\nadvice for the identical pairs: %s\n", identicalAdvice)
	}
	if len(d.UnpairedA)+len(d.UnpairedB) > 0 {
		fmt.Fprintf(w, "\nunpaired (no module of the same family and stage on the other side):\n")
		for _, f := range d.UnpairedA {
			fmt.Fprintf(w, "  only in A: %s\n", f)
		}
		for _, f := range d.UnpairedB {
			fmt.Fprintf(w, "  only in B: %s\n", f)
		}
	}
	if len(d.Problems) > 0 {
		fmt.Fprintf(w, "\n%s (compared without them):\n", plural(len(d.Problems), "module could not be read", "modules could not be read"))
		for _, pr := range d.Problems {
			fmt.Fprintf(w, "  %s\n", pr)
		}
	}
	for _, wn := range d.Warnings {
		fmt.Fprintf(w, "warning: %s\n", wn)
	}
	return nil
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
func (t textRenderer) pair(w io.Writer, pr *DiffPair) (identicalAdvice string) {
	p, r := t.p, pr.Result
	fmt.Fprintf(w, "\n%s\n  %s\n  %s\n", p.bold(shorten(pr.Label(), 100)), pr.A.Path, pr.B.Path)
	if pr.HashA != "" || pr.HashB != "" {
		fmt.Fprintf(w, "  log hashes: %s → %s\n", nonEmpty(pr.HashA, "?"), nonEmpty(pr.HashB, "?"))
	}
	for _, c := range r.Causes {
		fmt.Fprintf(w, "  %s: %s\n", p.sev(causeLabel(c.Kind)), c.Summary)
		for _, ev := range c.Evidence {
			fmt.Fprintf(w, "      %s\n", ev)
		}
		switch {
		case c.Kind == diff.CauseIdentical:
			identicalAdvice = c.Advice
		case c.Advice != "":
			fmt.Fprintf(w, "    advice: %s\n", c.Advice)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	if !r.Identical {
		fmt.Fprintf(w, "  %d change(s) %s; %d instructions matched, %d added, %d removed\n", r.ChangeCount,
			kindCounts(r), r.Matched, r.Added, r.Removed)
	}
	if pr.Text != nil && pr.Text.Text != "" {
		fmt.Fprintln(w)
		for _, l := range strings.SplitAfter(strings.TrimRight(pr.Text.Text, "\n"), "\n") {
			fmt.Fprint(w, "    "+strings.TrimSuffix(l, "\n")+"\n")
		}
		for _, n := range pr.Text.Notes {
			fmt.Fprintf(w, "    (%s)\n", n)
		}
	}
	return identicalAdvice
}

func kindCounts(r *diff.Result) string {
	counts := map[diff.ChangeKind]int{}
	for _, c := range r.Changes {
		counts[c.Kind]++
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
	inv := c.Inventory
	fmt.Fprintf(w, "recomp cache: %s, %s (%s)\n", plural(inv.Count, "entry", "entries"), humanBytes(inv.Bytes), kindsLine(inv.ByKind))
	if c.LogsGiven {
		fmt.Fprintf(w, "  not used by the given runs: %s, %s\n", plural(inv.Unused, "entry", "entries"), humanBytes(inv.UnusedBytes))
	}
	if inv.Foreign > 0 {
		fmt.Fprintf(w, "  %s that %s not cache entries (never proposed for removal)\n", plural(inv.Foreign, "file", "files"),
			map[bool]string{true: "is", false: "are"}[inv.Foreign == 1])
	}
	if len(inv.Entries) > 0 {
		fmt.Fprintln(w)
		tb := &table{right: []bool{false, false, true, false, false}}
		tb.add("ENTRY", "KIND", "SIZE", "MODIFIED", "STATUS")
		for _, e := range inv.Entries {
			tb.add(ShellQuote(e.Dir+"/"+e.Name), string(e.Kind), humanBytes(e.Size), e.ModTime.UTC().Format("2006-01-02T15:04:05Z"),
				entryStatus(e, c.LogsGiven))
		}
		tb.write(w, "")
	}
	if shown := len(inv.Entries); shown < inv.Count {
		fmt.Fprintf(w, "  (%d more entries counted, not listed)\n", inv.Count-shown)
	}
	for _, m := range inv.MissingMisses {
		fmt.Fprintf(w, "missed and still absent: %s (the run looked for it and never wrote it: was the compile interrupted or the cache read-only?)\n", m)
	}
	for _, wn := range inv.Warnings {
		fmt.Fprintf(w, "warning: %s\n", wn)
	}
	if cmd := PruneCommand(c); cmd != "" {
		fmt.Fprintf(w, "\nrecomp never deletes anything. To remove the listed entries these runs did not use:\n  %s\n", cmd)
	}
	return nil
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
