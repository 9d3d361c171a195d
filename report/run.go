package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/verdict"
)

// The report of recomp run in each format: the run's own facts first (command, exit, wall
// time, the share of it spent compiling, the time to the first step), then the scan, the
// causes of the recompilations, and the gate.

func runHeadline(r *explain.Run) string {
	m := r.Manifest
	s := fmt.Sprintf("%s exited %d after %s", shorten(strings.Join(m.Command, " "), 120), m.ExitCode, durSeconds(m.WallSeconds))
	if m.Signal != "" {
		s += " (" + m.Signal + ")"
	}
	if m.Stopped != "" {
		s += ": stopped by recomp at " + m.Stopped
	}
	return s
}

func runFacts(r *explain.Run) []string {
	m := r.Manifest
	var out []string
	if f := r.CompileFraction(); f > 0 && (r.Scan.Verdict == nil || r.Scan.Verdict.Compile == 0) {
		out = append(out, fmt.Sprintf("compiling: %s of %s (%.1f%%)", dur(r.Scan.Ledger.Summary.CompileTime),
			durSeconds(m.WallSeconds), 100*f))
	}
	if m.HeldOpen {
		out = append(out, fmt.Sprintf("a process the command started kept its output open: recomp stopped reading %s after the command exited, and what it printed later is not in run.log",
			durSeconds(m.GraceSeconds)))
	}
	if m.LogError != "" {
		out = append(out, fmt.Sprintf("run.log is incomplete: writing it failed (%s) and %d bytes were not written; what it holds was written before",
			m.LogError, m.LogLostBytes))
	}
	if d := verdict.OwnDump(m); d != "" {
		out = append(out, d)
	}
	if m.ProbeNote != "" {
		out = append(out, m.ProbeNote)
	}
	if m.FirstStepSeconds >= 0 {
		out = append(out, fmt.Sprintf("first step %s after the start", durSeconds(m.FirstStepSeconds)))
	}
	for _, c := range m.Caches {
		out = append(out, fmt.Sprintf("cache %s: %d entries before, %d after, %d added", c.Dir, c.Before, c.After, c.AddedCount))
	}
	if sm := r.Scan.Ledger.Summary; sm.CacheMisses > 0 {
		s := fmt.Sprintf("the persistent cache missed %d compile request(s) (%d served from it)", sm.CacheMisses, sm.CacheHits)
		if held := cacheEntriesBefore(r); held > 0 {
			s += fmt.Sprintf(" though it held %d entries before the run", held)
		}
		out = append(out, s+"; why each missed: recomp diff EARLIER_RUN "+r.Folder+" (the run folder that filled the cache)")
	}
	var vs []string
	for _, k := range slices.Sorted(maps.Keys(m.Versions)) {
		vs = append(vs, k+" "+m.Versions[k])
	}
	if len(vs) > 0 {
		out = append(out, "versions: "+strings.Join(vs, ", "))
	}
	return out
}

// cacheEntriesBefore counts the entries the run's cache folders held before it.
func cacheEntriesBefore(r *explain.Run) int {
	n := 0
	for _, c := range r.Manifest.Caches {
		n += c.Before
	}
	return n
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

// withoutTextDiffs is the explanation without its line diffs: the summary printed at the end of
// a run stays short, and report.md and report.html keep the diffs.
func withoutTextDiffs(d *explain.Diff) *explain.Diff {
	c := *d
	c.Pairs = make([]*explain.DiffPair, len(d.Pairs))
	for i, p := range d.Pairs {
		q := *p
		q.Text = nil
		c.Pairs[i] = &q
	}
	return &c
}
