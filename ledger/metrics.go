package ledger

import (
	"fmt"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/logscan"
)

// reconcile makes what a stack's metrics report says count where the log's own records show
// less. A report is cumulative: its last count is the compilations of the process so far, its
// growth after warm-up compilations after warm-up, its growth after the first report
// recompilations (the graphs are unnamed: any graph compiled after the first report is the step
// compiled again). The log's records and the report are not added up: each total is the larger
// of the two, so a run with both PyTorch/XLA's analysis blocks and its metrics report is counted
// once. Its cache-hit counter (compile requests served from the in-memory graph cache) counts as
// cache hits only in a log with no per-compile records, where it is the only evidence of them.
func (l *Ledger) reconcile() {
	r := &l.reported
	s := &l.sum
	s.Executions = max(s.Executions, r.executions)
	if r.hitsSeen && l.evidence == 0 && r.hits > s.CacheHits {
		s.CacheHits = r.hits
	}
	if r.reports == 0 {
		return
	}
	if r.last > s.Compilations {
		extra := r.last - s.Compilations
		s.Compilations = r.last
		s.ReportedCompilations += extra
		shown := fmt.Sprintf("%d more than the log shows one by one", extra)
		if extra == r.last {
			shown = "the log shows none of them one by one"
		}
		l.notes = append(l.notes, Finding{Severity: SeverityInfo, Kind: FindingMetricsCompilations, File: r.lastAt.File, Line: r.lastAt.Line,
			Message: fmt.Sprintf("%s's metrics report counts %d compilation(s) by %s (CompileTime samples, cumulative); %s: they are counted, unnamed",
				r.title, r.last, stepWords(r.lastAt, "its last report"), shown),
			Advice: "the report does not say which graph compiled or why: " + evidenceAdvice(r.lastAt.Producer)})
	}
	if growth := r.last - r.first; growth > s.Recompilations {
		s.Recompilations = growth
	}
	warm := r.first
	switch {
	case l.opt.Warmup > 0:
		warm = l.opt.Warmup
	case l.opt.AfterMarker && r.warmSet:
		warm = r.warm
	}
	late := r.last - warm
	if late <= s.AfterWarmup {
		return
	}
	msg := fmt.Sprintf("%s's metrics report: %d graph(s) compiled after warm-up (CompileTime samples grew from %d at %s to %d at %s)",
		r.title, late, warm, stepWords(r.firstAt, "its first report"), r.last, stepWords(r.lastAt, "its last"))
	if warm != r.first {
		msg = fmt.Sprintf("%s's metrics report: %d graph(s) compiled after warm-up (CompileTime samples: %d by %s, warm-up ends after %d)",
			r.title, late, r.last, stepWords(r.lastAt, "its last report"), warm)
	}
	// one listed compilation after warm-up for each the report counts beyond what the log's own
	// records put after warm-up, all at the report that shows them
	for range late - s.AfterWarmup {
		if len(l.late) == MaxListed {
			break
		}
		l.late = append(l.late, &Unit{Module: "", Family: Unnamed, Program: Unnamed, Producer: r.lastAt.Producer, Input: l.input,
			File: r.lastAt.File, Line: r.lastAt.Line, LastLine: r.lastAt.Line, Compiled: true, AfterWarmup: true, Late: msg,
			Begin: r.lastAt.Time, DateKnown: r.lastAt.DateKnown})
	}
	s.AfterWarmup = late
	l.notes = append(l.notes, Finding{Severity: SeverityWarning, Kind: FindingMetricsRecompiled, File: r.lastAt.File, Line: r.lastAt.Line,
		Message: msg + ": the program compiles new graphs after its first steps",
		Advice:  frameworks.RecompiledAdvice(r.lastAt.Producer)})
}

// stepWords names a report by the step it says it is for, else by what it is.
func stepWords(ev logscan.Event, otherwise string) string {
	if ev.Step != "" {
		return "step " + ev.Step
	}
	if ev.Line > 0 {
		return fmt.Sprintf("%s (line %d)", otherwise, ev.Line)
	}
	return otherwise
}

// evidenceAdvice says how to make a producer's stack log each compilation.
func evidenceAdvice(p logscan.Producer) string {
	if fw := frameworks.ForProducer(p); fw != nil && fw.Advice.Evidence != "" {
		return "turn on its compile logging (" + fw.Advice.Evidence + ")"
	}
	return frameworks.EvidenceAdvice()
}

// ProbeSteps gives a one-process report the steps a probe counted (recomp run's, for
// PyTorch/XLA): compiled are the process's compilations, in order, steps the step each was in,
// of the steps the process ended, epochs the steps ended when each epoch began (nil: unknown), and
// durs each compilation's duration (nil: none). It does nothing when the report is of several
// processes, or compiled and steps differ in length; a log that counts steps itself
// (PT_XLA_DEBUG_LEVEL=2) keeps its own, and takes the epochs only where it counts as many, and one
// that gives compile times keeps its own.
func (r *Report) ProbeSteps(compiled []*Unit, steps []int, of int, epochs []int, durs []time.Duration) bool {
	if len(r.Procs) != 1 || len(compiled) != len(steps) || len(compiled) == 0 {
		return false
	}
	p := &r.Procs[0]
	if p.Steps == 0 {
		for i, u := range compiled {
			u.Step = steps[i]
		}
		p.Steps = of
	}
	if len(epochs) > 0 && p.Steps == of { // the log's own count agrees: the epochs are of its steps
		p.Epochs = epochs
	}
	if len(durs) != len(compiled) || r.Summary.CompileTime != 0 || r.Summary.Compilations != len(compiled) {
		return true
	}
	for i, u := range compiled {
		u.Duration = durs[i]
		r.Summary.CompileTime += durs[i]
		p.Cost += durs[i]
		if u.AfterWarmup {
			r.Summary.LateCompileTime += durs[i]
		}
	}
	for _, m := range r.Modules {
		m.CompileTime = 0
		for _, u := range m.Units {
			if u.Compiled {
				m.CompileTime += u.Duration
			}
		}
	}
	for _, s := range r.Sequences {
		s.CompileTime = 0
		for _, u := range compiled {
			s.CompileTime += u.Duration
		}
	}
	return true
}
