package gate

import (
	"slices"

	"github.com/recomp/recomp/ledger"
)

// Failure kinds of the coverage and rank gates.
const (
	// FailUncovered is a run-time compilation no warm-up variant covers (guard --covered-by).
	FailUncovered FailureKind = "uncovered_compilation"
	// FailDivergence is a rank whose compile requests depart from the majority's (guard
	// --ranks-consistent).
	FailDivergence FailureKind = "rank_divergence"
)

// EvaluateCoverage judges a run time against its warm-up: its uncovered compilations fail the
// gate (beyond MaxRecompiles) in place of the compilations after warm-up; the evidence
// problems of both the warm-up's and the run time's logs stand, and with Loads so do executable
// loads after warm-up. warm may be run (one log split by a marker). unmatched, when not "",
// says why some run-time compilations could be matched to no warm-up variant (a log names no
// signature or hash for them): neither covered nor uncovered, they make the verdict
// inconclusive (AllowNoEvidence passes it).
func EvaluateCoverage(warm, run *ledger.Scan, uncovered []Failure, unmatched string, opt Options) *Result {
	g := EvaluateScan(run, opt)
	if warm != nil && warm != run {
		for _, p := range EvaluateScan(warm, opt).Problems {
			if !slices.Contains(g.Problems, p) {
				g.Problems = append(g.Problems, p)
			}
		}
	}
	if unmatched != "" && !opt.AllowNoEvidence {
		g.Problems = append(g.Problems, unmatched)
	}
	var loads []Failure
	for _, f := range g.Failures {
		if f.Kind == FailLoad {
			loads = append(loads, f)
		}
	}
	g.Failures = append(slices.Clone(uncovered[:min(len(uncovered), ledger.MaxListed)]), loads...)
	g.Compilations = len(uncovered)
	// A warm-up log read in part may hold the variant that covers one: not proven.
	g.proven = false
	g.decide(opt, "uncovered compilation(s)")
	return g
}

// AddDivergences fails a verdict on ranks whose compile requests depart from the majority's
// (guard --ranks-consistent), besides what failed it already.
func (g *Result) AddDivergences(fs []Failure, opt Options) {
	if len(fs) == 0 {
		return
	}
	g.Failures = append(g.Failures, fs...)
	g.Divergences = len(fs)
	what := g.counted
	if what == "" {
		what = "compilation(s) after warm-up"
	}
	g.decide(opt, what) // what Compilations counts stays what it was: after warm-up, or uncovered
}
