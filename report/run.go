package report

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// The report of recomp run in each format: the run's own facts first (command, exit, wall
// time, the share of it spent compiling, the time to the first step), then the scan, the
// causes of the recompilations, and the gate.

func runHeadline(r *Run) string {
	m := r.Manifest
	s := fmt.Sprintf("%s exited %d after %s", strings.Join(m.Command, " "), m.ExitCode, dur(time.Duration(m.WallSeconds*float64(time.Second))))
	if m.Signal != "" {
		s += " (" + m.Signal + ")"
	}
	return s
}

func runFacts(r *Run) []string {
	m := r.Manifest
	var out []string
	if f := r.CompileFraction(); f > 0 {
		out = append(out, fmt.Sprintf("compiling: %s of %s (%.1f%%)", dur(r.Scan.Ledger.Summary.CompileTime),
			dur(time.Duration(m.WallSeconds*float64(time.Second))), 100*f))
	}
	if m.HeldOpen {
		out = append(out, fmt.Sprintf("a process the command started kept its output open: recomp stopped reading %s after the command exited, and what it printed later is not in run.log",
			dur(time.Duration(m.GraceSeconds*float64(time.Second)))))
	}
	if m.FirstStepSeconds >= 0 {
		out = append(out, fmt.Sprintf("first step %s after the start", dur(time.Duration(m.FirstStepSeconds*float64(time.Second)))))
	}
	for _, c := range m.Caches {
		out = append(out, fmt.Sprintf("cache %s: %d entries before, %d after, %d added", c.Dir, c.Before, c.After, c.AddedCount))
	}
	var vs []string
	for _, k := range sortedStrings(m.Versions) {
		vs = append(vs, k+" "+m.Versions[k])
	}
	if len(vs) > 0 {
		out = append(out, "versions: "+strings.Join(vs, ", "))
	}
	return out
}

func sortedStrings(m map[string]string) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return keys
}

func (t textRenderer) run(w io.Writer, r *Run) error {
	o := t.out(w)
	o.printf("%s: %s; run folder %s\n", bold("recomp run"), runHeadline(r), r.Folder)
	for _, f := range runFacts(r) {
		o.printf("  %s\n", f)
	}
	o.printf("\n")
	t.scanTo(o, r.Scan)
	if r.Explain != nil && len(r.Explain.Pairs) > 0 {
		o.printf("\n")
		t.diffTo(o, withoutTextDiffs(r.Explain))
	}
	if r.Gate != nil {
		o.printf("\n")
		t.guardTo(o, &Guard{Scan: r.Scan, Gate: r.Gate})
	}
	return o.err
}

// RunJSON is the document of recomp run (report.json in the run folder).
type RunJSON struct {
	Version         int       `json:"version"`
	Folder          string    `json:"folder"`
	Manifest        any       `json:"manifest"`
	CompileFraction float64   `json:"compile_fraction"`
	Scan            ScanJSON  `json:"scan"`
	Explain         *DiffJSON `json:"explain"`
	Gate            *GateJSON `json:"gate,omitempty"`
}

func (jsonRenderer) run(w io.Writer, r *Run) error {
	doc := RunJSON{Version: JSONVersion, Folder: r.Folder, Manifest: r.Manifest, CompileFraction: r.CompileFraction(), Scan: ScanDocument(r.Scan)}
	if r.Explain != nil {
		d := DiffDocument(r.Explain)
		doc.Explain = &d
	}
	if r.Gate != nil {
		doc.Gate = GateDocument(r.Gate)
	}
	return writeJSON(w, doc)
}

func (markdownRenderer) run(w io.Writer, r *Run) error {
	fmt.Fprintf(w, "# recomp run\n\n%s\n\n", mdCode(runHeadline(r), false))
	for _, f := range runFacts(r) {
		fmt.Fprintf(w, "- %s\n", mdText(f))
	}
	fmt.Fprintln(w)
	if r.Gate != nil {
		if err := (markdownRenderer{}).guard(w, &Guard{Scan: r.Scan, Gate: r.Gate}); err != nil {
			return err
		}
	} else {
		writeScanMarkdown(w, "what the log says", r.Scan)
	}
	if r.Explain != nil && len(r.Explain.Pairs) > 0 {
		return (markdownRenderer{}).diff(w, r.Explain)
	}
	return nil
}

// withoutTextDiffs is the explanation without its line diffs: the summary printed at the end of
// a run stays short, and report.md and report.html keep the diffs.
func withoutTextDiffs(d *Diff) *Diff {
	c := *d
	c.Pairs = make([]*DiffPair, len(d.Pairs))
	for i, p := range d.Pairs {
		q := *p
		q.Text = nil
		c.Pairs[i] = &q
	}
	return &c
}
