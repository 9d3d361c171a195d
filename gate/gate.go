package gate

import (
	"fmt"
	"strconv"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/ledger"
)

// FailureKind says what failed the gate.
type FailureKind string

// Failure kinds; the names are part of the JSON contract.
const (
	FailCompilation FailureKind = "compilation"
	FailLoad        FailureKind = "executable_load"
)

// Options configure the gate.
type Options struct {
	// MaxRecompiles tolerates this many compilations after warm-up.
	MaxRecompiles int
	// Loads also fails on executable loads after warm-up.
	Loads bool
	// AllowNoEvidence passes a run whose logs hold no compile evidence at all.
	AllowNoEvidence bool
}

// Failure is one compilation or load that fails the gate.
type Failure struct {
	Kind     FailureKind
	Module   string
	Family   string
	Hash     string
	File     string
	Line     int
	Duration time.Duration // the compile or load time it cost
	Message  string
	Producer string
	// Reason is the framework's own explanation, one line, when it gave one.
	Reason string
	// Site is the line of the program's own code that made it compile, when known.
	Site ledger.Site
}

// Result is the gate's verdict.
type Result struct {
	Passed bool
	// Inconclusive says the gate could not judge: its evidence is missing or incomplete
	// (Problems says why). An inconclusive gate does not pass.
	Inconclusive bool
	Reason       string
	Allowed      int
	// Failures are the first ledger.MaxListed failures; Compilations and LoadFailures count
	// them all.
	Failures     []Failure
	Compilations int
	LoadFailures int
	// Divergences counts the ranks that departed from the majority (guard --ranks-consistent).
	Divergences int
	// counted says what Compilations counts, in the reason's words.
	counted string
	// proven says Compilations counts compilations read from text logs: past the allowance,
	// they fail the gate whatever else the logs leave unread (more evidence cannot undo them).
	proven bool
	// Problems are what makes the verdict unreliable: inputs that could not be read to the
	// end, a warm-up marker that never matched, a process without compile evidence, a log cut
	// inside a compilation, a warm-up that never ended.
	Problems []string
}

// Doubt is one reason a report's logs cannot show that nothing compiled after warm-up.
type Doubt struct {
	Text string
	// Missing says a process, or a stack in it, left no record of each compilation (its
	// compile logging was off): then not even "no program compiled again" can be said of it.
	Missing bool
}

// EvidenceDoubts says which processes' logs cannot show that nothing compiled after warm-up,
// and why: lines recomp could not read, missing per-compilation evidence, a log cut inside a
// compilation, a warm-up that never ended.
func EvidenceDoubts(rep *ledger.Report) []Doubt {
	var out []Doubt
	with, clusters := 0, 0
	for _, p := range rep.Procs {
		if p.Evidence > 0 {
			with++
		}
		clusters += p.ClusterLines
	}
	if s := ledger.UnreadLines(rep); s != "" {
		// Lines recomp could not read may be the compilations the gate is about.
		out = append(out, Doubt{Text: s + ": the gate cannot tell whether those compiled after warm-up"})
		if with == 0 {
			with = len(rep.Procs) // their silence is not the absence of compile logging
		}
	}
	// The stack whose compile evidence may be one line per process (TF's "Compiled cluster
	// using XLA!"): ClusterLines count that line.
	once := frameworks.OncePerProcess()
	line := strconv.Quote(once.OncePerProcess)
	switch {
	case with == 0 && clusters > 0:
		out = append(out, Doubt{Missing: true, Text: "the only compile evidence is " + once.Short + "'s " + line + ", which " + once.Short + " prints once per process " +
			"however often it compiles: turn on the device compiler's logging (" + once.Advice.Evidence +
			"; recomp run sets it)"})
	case with == 0:
		out = append(out, Doubt{Missing: true, Text: "no compile evidence in the logs: " + frameworks.EvidenceAdvice()})
	case with < len(rep.Procs):
		for _, p := range rep.Procs {
			if p.Evidence > 0 {
				continue
			}
			what := "no compile evidence of its own"
			if p.ClusterLines > 0 {
				what += " (only " + once.Short + "'s once-per-process " + line + ")"
			}
			out = append(out, Doubt{Missing: true, Text: fmt.Sprintf("%s: %s, while the other inputs have some: its compile logging was off, or it is not a log of this run", p.Name, what)})
		}
	}
	for _, p := range rep.Procs {
		if p.Evidence > 0 {
			out = append(out, unlogged(p, once)...)
		}
		if p.ClusterLines > 0 && p.TFEvidence == 0 && p.Evidence > 0 {
			// Another stack's records are no evidence of TF's compilations.
			out = append(out, Doubt{Missing: true, Text: fmt.Sprintf("%s: %s compiled (its once-per-process %s) but logged none of its "+
				"compilations, beside another stack's records: %s's recompilations cannot be seen: turn on the device compiler's logging (%s; recomp run sets it)",
				p.Name, once.Short, line, once.Short, once.Advice.Evidence)})
		}
		if u := p.Cut; u != nil {
			name := u.Module
			if name == "" {
				name = "a module"
			}
			out = append(out, Doubt{Text: fmt.Sprintf("%s:%d: the log ends inside the compilation of %s that begins there: it was cut, or is still being written", u.File, u.Line, name)})
		}
		if p.CutBegin != "" && p.Cut == nil {
			out = append(out, Doubt{Text: p.CutBegin})
		}
		if p.WarmupUnfinished {
			what := fmt.Sprintf("the %d this process made", p.Counted)
			if eager := p.Compilations - p.Counted; eager > 0 {
				what = fmt.Sprintf("the %d of the program's own functions this process made (and %d of eager one-op programs, which --warmup does not count)", p.Counted, eager)
			}
			out = append(out, Doubt{Text: fmt.Sprintf("%s: the warm-up never ended: --warmup asks for more compilations than %s", p.Name, what)})
		}
	}
	return out
}

// unlogged are the doubts of a process whose log holds compile records, about each stack the log
// shows retracing without a record of its compilations: another stack's records are no evidence
// of its (the verdict on its lines alone would be inconclusive; beside them it stays so). The
// stack that prints its line once per process is left to that line's doubt when it printed one.
func unlogged(p ledger.Process, once *frameworks.Framework) []Doubt {
	var out []Doubt
	for _, u := range p.Unlogged {
		fw := frameworks.ByName(u.Stack)
		if fw == nil || fw == once && p.ClusterLines > 0 {
			continue
		}
		name := fw.Short
		if name == "" {
			name = fw.Title
		}
		out = append(out, Doubt{Missing: true, Text: fmt.Sprintf("%s: %s retraced %d time(s) but logged none of its compilations, beside another stack's records: "+
			"%s's recompilations cannot be seen: turn on its compile logging (%s; recomp run sets it)", p.Name, name, u.Retraces, name, fw.Advice.Evidence)})
	}
	return out
}

// Input is what the caller knows of one input that the report does not: that it could not be
// read to the end, or is not a text log.
type Input struct {
	Path      string
	ReadError string // the input could not be read to the end
	Binary    string // why the input is binary data, not a text log
	// Incomplete says why the input does not hold the whole run (a run folder of a run that
	// was cut): what it leaves out may have compiled.
	Incomplete string
}

// EvaluateScan judges what ledger.ReadLogs read: its report, and its inputs that could not
// be read to the end or are not text.
func EvaluateScan(s *ledger.Scan, opt Options) *Result {
	var inputs []Input
	for _, in := range s.Inputs {
		if in.ReadError != "" || in.Binary != "" || in.Incomplete != "" {
			inputs = append(inputs, Input{Path: in.Path, ReadError: in.ReadError, Binary: in.Binary, Incomplete: in.Incomplete})
		}
	}
	g := Evaluate(s.Ledger, inputs, opt)
	if len(s.Rotated) > 0 {
		// One process's log read as several: a recompilation across the parts is seen by none.
		g.Problems = append(g.Problems, s.Rotated...)
		g.decide(opt, g.counted)
	}
	return g
}

// Evaluate judges a report. A gate needs evidence from every process: a process whose log
// holds no line of per-compilation logging, a log that ends inside a compilation, a binary
// input, a warm-up that never ended make it inconclusive (AllowNoEvidence passes them); an
// input that could not be read to the end, or a warm-up marker that never matched, always do.
func Evaluate(rep *ledger.Report, inputs []Input, opt Options) *Result {
	g := &Result{Allowed: opt.MaxRecompiles, Failures: []Failure{}, Problems: []string{}}
	var doubts []string // what AllowNoEvidence overrides
	g.proven = true
	for _, in := range inputs {
		if in.ReadError != "" {
			g.Problems = append(g.Problems, in.Path+": "+in.ReadError)
		}
		if in.Binary != "" {
			g.proven = false // its "compilations" may be bytes that happen to read as records
			doubts = append(doubts, fmt.Sprintf("%s: binary data (%s), not a text log: lines found in it are no evidence", in.Path, in.Binary))
		}
		if in.Incomplete != "" {
			doubts = append(doubts, fmt.Sprintf("%s: %s: what the log leaves out may have compiled", in.Path, in.Incomplete))
		}
	}
	for _, f := range rep.MarkerMissing {
		g.Problems = append(g.Problems, fmt.Sprintf("%s: the warm-up marker matched no line, so nothing counts as after warm-up", f))
	}
	for _, d := range EvidenceDoubts(rep) {
		doubts = append(doubts, d.Text)
	}
	if !opt.AllowNoEvidence {
		g.Problems = append(g.Problems, doubts...)
	}
	g.Compilations = rep.Summary.AfterWarmup
	static := map[string][]string{} // by family: the static arguments the probe saw change
	for _, m := range rep.Modules {
		if st := ledger.StaticSeen(m.Compiled()); st != nil {
			static[m.Family] = st
		}
	}
	for _, u := range rep.Late {
		f := Failure{Kind: FailCompilation, Module: u.Module, Family: u.Family, Hash: u.Hash, File: u.File, Line: u.Line,
			Duration: u.Duration, Message: u.Late, Producer: string(u.Producer)}
		if u.Site.User() {
			f.Site = u.Site
		}
		if u.Why != "" {
			f.Reason = ledger.Said(string(u.Producer), u.Why, static[u.Family])
		}
		g.Failures = append(g.Failures, f)
	}
	if opt.Loads {
		g.LoadFailures = rep.Summary.LoadsAfterWarmup
		for _, ld := range rep.LateLoads {
			if len(g.Failures) >= ledger.MaxListed {
				break
			}
			g.Failures = append(g.Failures, Failure{Kind: FailLoad, File: ld.File, Line: ld.Line, Duration: ld.Duration,
				Message: "executable loaded after warm-up: executables are switching on the device"})
		}
	}
	if u := undecided(rep, g, opt); len(u) > 0 {
		g.Problems = append(g.Problems, u...)
		g.proven = false // each may be set-up, not a recompilation
	}
	g.decide(opt, "compilation(s) after warm-up")
	return g
}

// undecided are the problems of a gate that would fail only on compilations the log cannot tell
// from set-up (ledger's Unit.Undecided): it is inconclusive, with the way to decide, never passed.
// A gate that fails for anything else fails.
func undecided(rep *ledger.Report, g *Result, opt Options) []string {
	if g.Compilations <= opt.MaxRecompiles || g.LoadFailures > 0 || g.Compilations != len(rep.Late) {
		return nil
	}
	var out []string
	for _, u := range rep.Late {
		if u.Undecided == "" {
			return nil
		}
		name := u.Family
		if s := u.Site.String(); s != "" && u.Site.User() {
			name = s
		}
		out = append(out, fmt.Sprintf("%s:%d: %s: %s", u.File, u.Line, name, u.Undecided))
	}
	return out
}

// decide sets the verdict from the result's counts: problems make it inconclusive; more
// compilations of kind what than allowed, executable loads after warm-up or divergent ranks
// fail it. Proven compilations past the allowance fail it even with problems, which the
// reason then names: what the logs leave unread can add compilations, never take one away.
func (g *Result) decide(opt Options, what string) {
	g.Passed, g.Inconclusive, g.counted = false, false, what
	failing := g.Compilations > opt.MaxRecompiles
	switch {
	case failing && g.proven && len(g.Problems) > 0:
		g.Reason = fmt.Sprintf("%d %s, %d allowed (at least: %s", g.Compilations, what, opt.MaxRecompiles, g.Problems[0])
		if len(g.Problems) > 1 {
			g.Reason += fmt.Sprintf("; and %d more problem(s)", len(g.Problems)-1)
		}
		g.Reason += ")"
	case len(g.Problems) > 0:
		g.Inconclusive = true
		g.Reason = fmt.Sprintf("inconclusive: %s", g.Problems[0])
		if len(g.Problems) > 1 {
			g.Reason += fmt.Sprintf(" (and %d more problem(s))", len(g.Problems)-1)
		}
	case failing:
		g.Reason = fmt.Sprintf("%d %s, %d allowed", g.Compilations, what, opt.MaxRecompiles)
	case g.LoadFailures > 0:
		g.Reason = fmt.Sprintf("%d executable load(s) after warm-up", g.LoadFailures)
	case g.Divergences > 0:
		g.Reason = fmt.Sprintf("%d rank(s) departed from the other ranks' compile requests", g.Divergences)
	default:
		g.Passed = true
		g.Reason = fmt.Sprintf("%d %s, %d allowed", g.Compilations, what, opt.MaxRecompiles)
	}
	if g.Divergences > 0 && !g.Inconclusive && !g.Passed && failing {
		g.Reason += fmt.Sprintf("; %d rank(s) departed from the other ranks' compile requests", g.Divergences)
	}
}
