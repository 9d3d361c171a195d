package across

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/go-hclog"
	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/internal/input"
	"github.com/recomp/recomp/internal/option"
	"github.com/recomp/recomp/ledger"
)

// A run time held against its warm-up: a serving or training job compiles a set of programs and
// shapes before it starts (its warm-up), and every compilation at run time should be one of
// them. A run-time compilation is covered when the warm-up compiled (or got from a cache) the
// same program with the same variant: the argument signature the framework logged (JAX), else
// the graph hash (PyTorch/XLA, TF-IPU). Where a log names neither for a program the warm-up
// compiled, the compilation is unmatched: the verdict is inconclusive, never "covered" by the
// program's name alone.

// CoverageOptions say how a run time is held against its warm-up.
type CoverageOptions struct {
	// Warmup names the warm-up's log in the report; Marker is the --after expression that
	// split a log into warm-up and run time ("" when the warm-up is a log of its own).
	Warmup, Marker string
	// Split says warm and run are one scan split by the marker: the warm-up is what came before
	// it, the run time what came after.
	Split bool
	// Step finds the step number in a line the program prints (DefaultStep when nil).
	Step *regexp.Regexp
}

// CoverageOf holds the compilations of run (after the warm-up marker when the scan was read with
// one) against the compile requests of warm (before the marker when Split).
func CoverageOf(warm, run *ledger.Scan, opt CoverageOptions) *Coverage {
	c := &Coverage{Warmup: opt.Warmup, Marker: opt.Marker}
	wu, ru, used := coverageUnits(warm, run, opt, c)
	c.By = coverageBy(wu, ru)
	// A variant is a program with its evidence; a run-time compilation is covered by a variant
	// of its program only when both name the same evidence (signature, else graph hash) and it
	// is equal. Where one side names none, the two cannot be told apart: that compilation is
	// unmatched, which makes the verdict inconclusive, never covered on the program's name.
	key := func(u *ledger.Unit) string { return u.Program + "\x00" + u.Signature + "\x00" + u.Hash }
	variants := map[string]*WarmupVariant{}
	byProgram := map[string][]*WarmupVariant{}
	for _, u := range wu {
		k := key(u)
		if variants[k] != nil {
			continue
		}
		v := &WarmupVariant{Request: request(u)}
		variants[k] = v
		c.Variants = append(c.Variants, v)
		byProgram[u.Program] = append(byProgram[u.Program], v)
	}
	// match finds the variant that covers u; known is false when no variant covers it and one
	// of its program's variants cannot be compared with it.
	match := func(u *ledger.Unit) (covering *WarmupVariant, known bool) {
		known = true
		for _, v := range byProgram[u.Program] {
			switch {
			case u.Signature != "" && v.Signature != "":
				if u.Signature == v.Signature {
					return v, true
				}
			case u.Hash != "" && v.Hash != "":
				if u.Hash == v.Hash {
					return v, true
				}
			default:
				known = false // no evidence to tell them apart
			}
		}
		return nil, known
	}
	for _, u := range used {
		if v, _ := match(u); v != nil {
			v.Uses++
		}
	}
	var late []*ledger.Unit
	var runEvidence, warmNone bool
	for _, u := range ru {
		c.Runtime++
		v, known := match(u)
		switch {
		case v != nil:
			c.Covered++
			v.Uses++
			continue
		case !known:
			c.Unmatched++
			if len(c.UnmatchedPrograms) < maxUnmatchedPrograms && !slices.Contains(c.UnmatchedPrograms, u.Family) {
				c.UnmatchedPrograms = append(c.UnmatchedPrograms, u.Family)
			}
			runEvidence = runEvidence || u.Signature != "" || u.Hash != ""
			for _, v := range byProgram[u.Program] {
				warmNone = warmNone || v.Signature == "" && v.Hash == ""
			}
			continue
		}
		late = append(late, u)
	}
	if c.Unmatched > 0 {
		c.Notes = append(c.Notes, unmatchedNote(c, runEvidence, warmNone, opt.Warmup))
	}
	if !c.UseKnown {
		c.Notes = append(c.Notes, "the run time's logs show no cache hit or execution of a compiled program ("+frameworks.UnusedAdvice()+"): a warm-up variant not compiled again is not seen used, which does not mean it was unused")
	}
	c.Uncovered = uncovered(late, c.Variants, opt.Step)
	return c
}

// unmatchedNote says why c's unmatched run-time compilations could not be matched to a warm-up
// variant: which side's log names no argument signatures or graph hashes.
func unmatchedNote(c *Coverage, runEvidence, warmNone bool, warmup string) string {
	var why string
	switch {
	case runEvidence && warmNone:
		why = "the run time's log names their argument signatures or graph hashes, the warm-up's log (" + warmup + ") does not"
	case warmNone:
		why = "neither the warm-up's log nor the run time's names their argument signatures or graph hashes"
	default:
		why = "the warm-up's log names their argument signatures or graph hashes, the run time's log does not"
	}
	return fmt.Sprintf("%d run-time compilation(s) of programs the warm-up compiled (%s) cannot be matched to a warm-up variant: %s; "+
		"they are neither covered nor uncovered (%s in both runs)", c.Unmatched, strings.Join(c.UnmatchedPrograms, ", "), why, frameworks.SignaturesAdvice())
}

// coverageUnits are the warm-up's compile requests, the run time's compilations and its
// requests served without compiling (which make c.UseKnown), eager one-op programs left out;
// the first two in the order of the logs.
func coverageUnits(warm, run *ledger.Scan, opt CoverageOptions, c *Coverage) (wu, ru, used []*ledger.Unit) {
	for _, m := range warm.Ledger.Modules {
		for _, u := range m.Units {
			if u.Eager || (opt.Split && u.AfterWarmup) {
				continue
			}
			wu = append(wu, u)
		}
	}
	for _, m := range run.Ledger.Modules {
		for _, u := range m.Units {
			if u.Eager || (opt.Marker != "" && !u.AfterWarmup) {
				continue // with a marker, the run time is what came after it
			}
			if u.Compiled {
				ru = append(ru, u)
			} else {
				used = append(used, u)
				c.UseKnown = true
			}
		}
	}
	ledger.SortUnits(wu)
	ledger.SortUnits(ru)
	return wu, ru, used
}

// coverageBy is what tells the variants apart: "signature" when every request names its
// argument signature, else "hash" when every one names its graph hash, else "program".
func coverageBy(wu, ru []*ledger.Unit) string {
	sig, hash := true, true
	for _, u := range append(append([]*ledger.Unit{}, wu...), ru...) {
		sig = sig && u.Signature != ""
		hash = hash && u.Hash != ""
	}
	switch {
	case sig && len(wu) > 0:
		return "signature"
	case hash && len(wu) > 0:
		return "hash"
	}
	return "program"
}

// uncovered says of each run-time compilation no variant covers its step (read from its log,
// one pass per log) and the nearest warm-up variant.
func uncovered(late []*ledger.Unit, variants []*WarmupVariant, step *regexp.Regexp) []*Uncovered {
	steps := map[string]map[int]int{}
	lines := map[string][]int{}
	for _, u := range late {
		lines[u.File] = append(lines[u.File], u.LastLine)
	}
	if step == nil {
		step = explain.DefaultStep.Regexp()
	}
	for f, ls := range lines {
		steps[f] = explain.StepsAfter(f, ls, step)
	}
	var out []*Uncovered
	for _, u := range late {
		x := &Uncovered{Request: request(u), Step: -1, Duration: u.Duration}
		if s, ok := steps[u.File][u.LastLine]; ok {
			x.Step = s
		}
		nearest(x, u, variants)
		out = append(out, x)
	}
	return out
}

// nearest finds the warm-up variant of the program an uncovered compilation is closest to: the
// smallest one its inputs could be padded to, else the one whose arguments differ by fewest
// elements; and names the cause against it.
// request is a unit as the coverage names it.
func request(u *ledger.Unit) Request {
	return Request{Program: u.Family, Module: u.Module, Signature: u.Signature, Args: explain.ShortSignature(u.Signature), Hash: u.Hash,
		File: u.File, Line: u.Line}
}

func nearest(x *Uncovered, u *ledger.Unit, vs []*WarmupVariant) {
	var same []*WarmupVariant
	for _, v := range vs {
		if v.Program == u.Family {
			same = append(same, v)
		}
	}
	if len(same) == 0 {
		x.Summary = fmt.Sprintf("the warm-up never compiled %s", u.Family)
		return
	}
	var best *WarmupVariant
	bestExtra := int64(-1)
	for _, v := range same {
		if e, ok := explain.CoversBy(v.Signature, u.Signature); ok && (bestExtra < 0 || e < bestExtra) {
			best, bestExtra = v, e
		}
	}
	if best != nil {
		x.Nearest, x.PadTo = best, true
	} else {
		bestDist := int64(-1)
		for _, v := range same {
			if d := explain.SignatureDistance(v.Signature, u.Signature); d >= 0 && (bestDist < 0 || d < bestDist) {
				best, bestDist = v, d
			}
		}
		if best == nil {
			best = same[len(same)-1]
		}
		x.Nearest = best
	}
	if ch, ok := explain.CompareSignatures(x.Nearest.Signature, u.Signature); ok {
		x.Cause = ch.Cause()
		x.Summary = ch.Summary + " against the nearest warm-up variant"
		if x.PadTo {
			x.Summary += fmt.Sprintf(" (%s): padded to it, the inputs would have been covered", explain.ShortSignature(x.Nearest.Signature))
		}
		return
	}
	x.Summary = fmt.Sprintf("a variant of %s the warm-up did not compile", u.Family)
	if u.Hash != "" {
		x.Summary += " (graph hash " + u.Hash + ")"
	}
}

// CoverageFailures are the gate failures of the run-time compilations the warm-up did not cover.
func CoverageFailures(c *Coverage) []gate.Failure {
	var out []gate.Failure
	for _, u := range c.Uncovered {
		what := u.Args
		if what == "" {
			what = u.Hash
		}
		msg := "compiled at run time, not covered by the warm-up"
		if what != "" {
			msg += ": " + what
		}
		if u.Step >= 0 {
			msg += fmt.Sprintf(" (step %d)", u.Step)
		}
		out = append(out, gate.Failure{Kind: gate.FailUncovered, Module: u.Module, Family: u.Program, Hash: u.Hash, File: u.File, Line: u.Line,
			Duration: u.Duration, Message: msg, Reason: u.Summary})
	}
	return out
}

// Unmatched is the gate's problem with the run-time compilations that could be matched to no
// warm-up variant, "" when there are none.
func Unmatched(c *Coverage) string {
	if c.Unmatched == 0 {
		return ""
	}
	return fmt.Sprintf("%d run-time compilation(s) of %s cannot be matched to the warm-up's variants: a log names no argument signature or graph hash for them",
		c.Unmatched, strings.Join(c.UnmatchedPrograms, ", "))
}

// CoveredOptions say how guard --covered-by reads its logs.
type CoveredOptions struct {
	// Logs are the logs guarded; none: the warm-up's log itself, split by Read.Marker.
	Logs []string
	// Warmup is the warm-up's log or run folder (--covered-by); After the --after expression.
	Warmup, After string
	Read          ledger.ReadOptions
	Gate          gate.Options
}

// GuardOptions are recomp guard's: the logs, where their warm-up ends (Read's warm-up or
// marker, a Baseline file of known programs, or a warm-up log CoveredBy), the gate's options,
// and with Ranks the logs are one job's ranks (RankInputs resolved them) and a rank whose
// compile requests depart from the others' fails too.
type GuardOptions struct {
	// Logs are the logs, run folders and folders of run folders as the command line names them
	// (explain.ReadScan: each run folder looked at once).
	Logs      []string
	Baseline  string
	CoveredBy string
	After     string // the --after expression, as given (for CoveredBy's report)
	Read      ledger.ReadOptions
	Gate      gate.Options
	Ranks     *explain.RanksOptions
}

// GuardSettings are recomp guard's options as a user gives them: plain values that Options
// checks. WriteBaseline is the baseline file to write in place of judging ("": none); with
// RanksConsistent the logs are one job's ranks, named as Ranks says.
type GuardSettings struct {
	Logs                               []string
	Baseline, WriteBaseline, CoveredBy string
	Read                               ledger.ReadSettings
	Gate                               gate.Options
	RanksConsistent                    bool
	Ranks                              explain.RankSettings
	Stdin                              io.Reader    // read for the path "-"
	Log                                hclog.Logger // diagnostics (nil: none)
}

// Options refuses the settings that exclude each other and gives the guard's options; with
// RanksConsistent the logs are resolved as a job's ranks (explain.RankInputs).
func (s GuardSettings) Options() (GuardOptions, error) {
	if s.Gate.MaxRecompiles < 0 {
		return GuardOptions{}, option.New([]string{"max-recompiles"}, "%[1]s %[2]d: want a number >= 0", s.Gate.MaxRecompiles)
	}
	read, err := s.Read.Options()
	read.Stdin, read.Log = s.Stdin, s.Log
	opt := GuardOptions{Logs: s.Logs, Baseline: s.Baseline, CoveredBy: s.CoveredBy, After: s.Read.After, Read: read, Gate: s.Gate}
	switch {
	case err != nil:
		return opt, err
	case s.Baseline != "" && s.WriteBaseline != "":
		return opt, option.New([]string{"baseline", "write-baseline"}, "%[1]s reads a baseline and %[2]s writes one: choose one")
	case s.Baseline != "" && (read.Ledger.Warmup > 0 || read.Marker != nil):
		return opt, option.New([]string{"baseline", "warmup", "after"}, "%[1]s replaces %[2]s and %[3]s: choose one")
	case s.CoveredBy != "" && (s.Baseline != "" || s.WriteBaseline != "" || read.Ledger.Warmup > 0):
		return opt, option.New([]string{"covered-by", "baseline", "write-baseline", "warmup"},
			"%[1]s replaces %[2]s, %[3]s and %[4]s: the warm-up is the log it names")
	case s.CoveredBy == "" && len(s.Logs) == 0:
		return opt, option.New([]string{"log"}, "expected at least one %[1]s")
	case !s.RanksConsistent:
		return opt, nil
	}
	ranks, err := s.Ranks.Options()
	if err != nil {
		return opt, err
	}
	ranks.Stdin, ranks.Log = s.Stdin, s.Log
	if opt.Logs, ranks.Dumps, ranks.Warnings, err = explain.RankInputs(s.Logs, nil); err != nil {
		return opt, err
	}
	opt.Ranks = &ranks
	return opt, nil
}

// EvaluateGuard judges the logs: the scan, the gate over it (or over what the warm-up did not cover),
// and the ranks' consistency when asked.
func EvaluateGuard(opt GuardOptions) (*Guard, error) {
	if opt.Baseline != "" {
		base, err := gate.ReadBaseline(opt.Baseline)
		if err != nil {
			return nil, err
		}
		opt.Read.Ledger.Baseline = base.Families
	}
	var g *Guard
	if opt.CoveredBy != "" {
		if len(opt.Logs) > 0 {
			if err := input.CheckStdin(append([]string{opt.CoveredBy}, opt.Logs...)); err != nil {
				return nil, err
			}
		}
		var err error
		if g, err = Covered(CoveredOptions{Logs: explain.ExpandRuns(opt.Logs), Warmup: opt.CoveredBy, After: opt.After, Read: opt.Read, Gate: opt.Gate}); err != nil {
			return nil, err
		}
	} else {
		s, err := explain.ReadScan(opt.Logs, opt.Read)
		if err != nil {
			return nil, err
		}
		g = &Guard{Scan: s, Gate: gate.EvaluateScan(&s.Scan, opt.Gate)}
	}
	if opt.Ranks != nil {
		g.Ranks = explain.RanksOf(&g.Scan.Scan, *opt.Ranks)
		g.Gate.AddDivergences(explain.DivergenceFailures(g.Ranks), opt.Gate)
	}
	return g, nil
}

// WriteGuardBaseline is recomp guard --write-baseline: it reads the logs (explain.ReadScan of
// what ExpandRuns makes of them) and writes their families and hashes to path, never over one
// of its inputs. It returns the baseline written.
func WriteGuardBaseline(path string, logs []string, read ledger.ReadOptions) (*gate.Baseline, error) {
	logs = explain.ExpandRuns(logs)
	s, err := explain.ReadScan(logs, read)
	if err != nil {
		return nil, err
	}
	b, err := gate.BaselineOf(&s.Scan)
	if err != nil {
		return nil, err
	}
	if err := gate.WriteBaseline(path, b, gate.OpenedInputs(logs, read.Stdin)); err != nil {
		if errors.Is(err, gate.ErrWouldOverwriteInput) {
			return nil, option.New([]string{"write-baseline"}, "%[1]s %[2]v", err)
		}
		return nil, err
	}
	return b, nil
}

// ErrNoSplit says the warm-up's log is the log guarded and nothing marks where its warm-up ends.
var ErrNoSplit = errors.New("give --after REGEX, the line that ends its warm-up")

// Covered holds the run time against the warm-up (guard --covered-by): the warm-up is a log or
// run folder of its own, or the part of the one log guarded before the --after marker.
func Covered(opt CoveredOptions) (*Guard, error) {
	logs := opt.Logs
	if len(logs) == 0 {
		logs = []string{opt.Warmup}
	}
	split := len(logs) == 1 && input.Same(logs[0], opt.Warmup)
	if split && opt.Read.Marker == nil {
		return nil, fmt.Errorf("--covered-by %s is the log guarded: %w", opt.Warmup, ErrNoSplit)
	}
	run, err := explain.Logs(logs, opt.Read)
	if err != nil {
		return nil, err
	}
	warm := run
	if !split {
		wopt := ledger.ReadOptions{SameProcess: true, Stdin: opt.Read.Stdin, Log: opt.Read.Log}
		if warm, err = explain.Logs([]string{opt.Warmup}, wopt); err != nil {
			return nil, err
		}
	}
	cov := CoverageOf(&warm.Scan, &run.Scan, CoverageOptions{Warmup: opt.Warmup, Marker: opt.After, Split: split})
	return &Guard{Scan: run, Coverage: cov,
		Gate: gate.EvaluateCoverage(&warm.Scan, &run.Scan, CoverageFailures(cov), Unmatched(cov), opt.Gate)}, nil
}

// maxUnmatchedPrograms bounds the programs a coverage names as unmatched.
const maxUnmatchedPrograms = 20
