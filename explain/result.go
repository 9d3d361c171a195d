package explain

import (
	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/runfolder"
	"github.com/recomp/recomp/verdict"
)

// The results explain computes (recomp scan, diff, explain, run); package report lays them
// out. Those across runs and ranks, and recomp guard's, are package across's.

// Scan is the report of recomp scan: what the logs say about compiling, caching and loading
// (ledger.ReadLogs reads them).
type Scan struct {
	ledger.Scan
	// Verdict is what the run's compilations come to: the programs that compiled again, their
	// cost, causes, lines and actions (nil when not made).
	Verdict *verdict.Result
	// Job is the processes lined up as a job's ranks when a launcher named them (its prefix on
	// the lines, or its environment recorded by recomp run): each rank that departs from the
	// others, where, and why. nil for one process, or processes no launcher named.
	Job *Ranks
	// Manifest is the run folder's manifest when one run folder of recomp run was read (nil
	// otherwise): how the command ended.
	Manifest *runfolder.Manifest
}

// Diff is the report of recomp diff and recomp explain.
type Diff struct {
	Command   string // "diff" or "explain"
	Pairs     []*DiffPair
	UnpairedA []string
	UnpairedB []string
	// Families are the module families of an explained dump (explain only).
	Families []Family
	// Problems are module files that could not be read or parsed; Warnings entries skipped.
	Problems []diff.Problem
	Warnings []string
	// Verdict is what the dump and the logs come to, when logs were given (nil otherwise).
	Verdict *verdict.Result
}

// DiffPair is one compared pair, with what the logs say about its two compilations.
type DiffPair struct {
	*diff.Pair
	// Group is the program the pair belongs to when explain grouped the dump by the log's
	// identities (a Python frame, a Keras step); "" when it is the module family.
	Group        string
	HashA, HashB string
	// Text is the text diff when it was asked for.
	Text *diff.TextDiff
}

// Label is how the pair's program is named: its group, else its module family.
func (p *DiffPair) Label() string {
	if p.Group != "" {
		return p.Group
	}
	return p.B.Family
}

// Family is one module family of an explained dump.
type Family struct {
	Family          string
	Files           []string
	LogCompilations int
	LogHashes       []string
}

// Differs reports whether anything paired differs or anything stayed unpaired.
func (d *Diff) Differs() bool {
	if len(d.UnpairedA)+len(d.UnpairedB) > 0 {
		return true
	}
	for _, p := range d.Pairs {
		if !p.Result.Identical {
			return true
		}
	}
	return false
}

// Recompiled reports whether explain found a recompilation: a pair that differs by a cause that
// is not expected once (state the first step built is set-up), or a module left unpaired.
func (d *Diff) Recompiled() bool {
	if len(d.UnpairedA)+len(d.UnpairedB) > 0 {
		return true
	}
	for _, p := range d.Pairs {
		if !p.Result.Identical && !p.SetUp() {
			return true
		}
	}
	return false
}

// SetUp says the pair differs only by causes expected once: the first step built state that
// later steps take as input, set-up rather than a recompilation.
func (p *DiffPair) SetUp() bool {
	if p.Result.Identical || len(p.Result.Causes) == 0 {
		return false
	}
	for _, c := range p.Result.Causes {
		if !c.Once {
			return false
		}
	}
	return true
}

// Counts returns how many pairs are identical and how many differ.
func (d *Diff) Counts() (identical, differ int) {
	for _, p := range d.Pairs {
		if p.Result.Identical {
			identical++
		} else {
			differ++
		}
	}
	return identical, differ
}

// Run is the report of recomp run: how the command ran, what its log says, why its programs
// were compiled again, and the gate's verdict when one was asked for.
type Run struct {
	Folder   string
	Manifest *runfolder.Manifest
	Scan     *Scan
	Explain  *Diff        // nil when the run dumped no HLO
	Gate     *gate.Result // nil without --guard
}

// CompileFraction is the share of the run's wall time spent compiling (0 when unknown).
func (r *Run) CompileFraction() float64 {
	if r.Manifest == nil || r.Manifest.WallSeconds <= 0 {
		return 0
	}
	return r.Scan.Ledger.Summary.CompileTime.Seconds() / r.Manifest.WallSeconds
}

// Outcome is the diff's: Inconclusive when a module could not be read (the answer may be
// incomplete), Found when anything differs or stayed unpaired (for explain: when anything was
// recompiled; pairs that differ only by state the first step built are set-up), else Clean.
func (d *Diff) Outcome() gate.Outcome {
	found := d.Differs()
	if d.Command == "explain" {
		found = d.Recompiled()
	}
	switch {
	case len(d.Problems) > 0:
		return gate.Inconclusive
	case found:
		return gate.Found
	}
	return gate.Clean
}
