// Package gate decides whether a run passes recomp's CI gate: nothing may compile after
// warm-up (beyond a tolerance), and optionally no executable may be loaded again. A gate that
// saw no evidence (no compile line at all, an input it could not read, a warm-up marker that
// never matched) does not pass: it is inconclusive. The package also reads and writes the
// baseline file of known-good module families and graph hashes.
package gate

import (
	"fmt"
	"time"

	"github.com/recomp/recomp/cache"
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
}

// Result is the gate's verdict.
type Result struct {
	Passed bool
	// Inconclusive says the gate could not judge: its evidence is missing or incomplete
	// (Problems says why). An inconclusive gate does not pass.
	Inconclusive bool
	Reason       string
	Allowed      int
	// Failures are the first cache.MaxListed failures; Compilations and LoadFailures count
	// them all.
	Failures     []Failure
	Compilations int
	LoadFailures int
	// Problems are what makes the verdict unreliable: inputs that could not be read to the
	// end, a warm-up marker that never matched, no compile evidence at all.
	Problems []string
}

// Evaluate judges a report. readErrors are the inputs that could not be read to the end
// (path and error), known only to the caller.
func Evaluate(rep *cache.Report, readErrors []string, opt Options) *Result {
	g := &Result{Allowed: opt.MaxRecompiles, Failures: []Failure{}, Problems: []string{}}
	g.Problems = append(g.Problems, readErrors...)
	for _, f := range rep.MarkerMissing {
		g.Problems = append(g.Problems, fmt.Sprintf("%s: the warm-up marker matched no line, so nothing counts as after warm-up", f))
	}
	if rep.Summary.Events == 0 && !opt.AllowNoEvidence {
		g.Problems = append(g.Problems, "no compile evidence in the logs: "+cache.EvidenceAdvice)
	}
	g.Compilations = rep.Summary.AfterWarmup
	for _, u := range rep.Late {
		f := Failure{Kind: FailCompilation, Module: u.Module, Family: u.Family, Hash: u.Hash, File: u.File, Line: u.Line,
			Duration: u.Duration, Message: u.Late, Producer: string(u.Producer)}
		if u.Why != "" {
			f.Reason = string(u.Producer) + " said: " + cache.SummarizeWhy(u.Why)
		}
		g.Failures = append(g.Failures, f)
	}
	if opt.Loads {
		g.LoadFailures = rep.Summary.LoadsAfterWarmup
		for _, ld := range rep.LateLoads {
			if len(g.Failures) >= cache.MaxListed {
				break
			}
			g.Failures = append(g.Failures, Failure{Kind: FailLoad, File: ld.File, Line: ld.Line, Duration: ld.Duration,
				Message: "executable loaded after warm-up: executables are switching on the device"})
		}
	}
	switch {
	case len(g.Problems) > 0:
		g.Inconclusive = true
		g.Reason = fmt.Sprintf("inconclusive: %s", g.Problems[0])
		if len(g.Problems) > 1 {
			g.Reason += fmt.Sprintf(" (and %d more problem(s))", len(g.Problems)-1)
		}
	case g.Compilations > opt.MaxRecompiles:
		g.Reason = fmt.Sprintf("%d compilation(s) after warm-up, %d allowed", g.Compilations, opt.MaxRecompiles)
	case g.LoadFailures > 0:
		g.Reason = fmt.Sprintf("%d executable load(s) after warm-up", g.LoadFailures)
	default:
		g.Passed = true
		g.Reason = fmt.Sprintf("%d compilation(s) after warm-up, %d allowed", g.Compilations, opt.MaxRecompiles)
	}
	return g
}
