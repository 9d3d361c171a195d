package main

import (
	"github.com/recomp/recomp/across"
	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/report"
)

type diffCmd struct {
	outputFlag
	Text  bool     `help:"Add a unified text diff of each changed computation (bounded: see docs/diff.md)."`
	Stage string   `help:"Dump stage to compare: before, after, or a stage name (default: before_optimizations when both dumps have it, else after_optimizations when both have it)." placeholder:"STAGE"`
	LogA  []string `name:"log-a" help:"A log of run A (its dump is A): compare the runs, not only their dumps." placeholder:"LOG"`
	LogB  []string `name:"log-b" help:"A log of run B." placeholder:"LOG"`
	DumpA string   `name:"dump-a" help:"The dump folder of run A when A is a log." placeholder:"DIR"`
	DumpB string   `name:"dump-b" help:"The dump folder of run B when B is a log." placeholder:"DIR"`
	Cache []string `help:"A persistent-cache folder the runs shared (besides those their manifests name): says whether an entry is still there, and what a hit saved." placeholder:"DIR"`
	A     string   `arg:"" name:"A" help:"Run A: a recomp run folder, a folder with a log and a dump, a log, an XLA dump folder or an HLO file ('-' for stdin, .gz read transparently)."`
	B     string   `arg:"" name:"B" help:"Run B, the same way."`
}

func (c *diffCmd) Run(e *env) error {
	if err := c.check("diff"); err != nil {
		return err
	}
	r, d, err := across.Diff(across.DiffOptions{RunsOptions: across.RunsOptions{Options: compareOptions(e, c.Stage, c.Text, c.Format), Caches: c.Cache},
		A: c.A, B: c.B, LogA: c.LogA, LogB: c.LogB, DumpA: c.DumpA, DumpB: c.DumpB})
	if err != nil {
		return usageErr("%v", err)
	}
	if r != nil {
		if err := c.render(e, r); err != nil {
			return err
		}
		return runsExit(r)
	}
	if err := c.render(e, d); err != nil {
		return err
	}
	return diffExit(d)
}

// runsExit is the exit code of diff on two runs: 2 when a module could not be read, 1 when B
// compiled anything A's cache did not serve (or the dumps differ), 0 otherwise.
func runsExit(r *across.RunsDiff) error {
	missed, _ := r.Missed()
	switch {
	case r.Dumps != nil && len(r.Dumps.Problems) > 0:
		return exitWith(exitUsage)
	case missed > 0, r.Dumps != nil && r.Dumps.Differs():
		return exitWith(exitFound)
	}
	return nil
}

// diffExit is the exit code of diff: 2 when a module could not be read (the answer may be
// incomplete), 1 when anything differs or stayed unpaired, 0 otherwise.
func diffExit(d *explain.Diff) error { return compareExit(d, d.Differs()) }

// explainExit is the exit code of explain: as diff's, except that pairs that differ only by state
// the first step built (set-up, expected once) are no recompilation.
func explainExit(d *explain.Diff) error { return compareExit(d, d.Recompiled()) }

func compareExit(d *explain.Diff, found bool) error {
	switch {
	case len(d.Problems) > 0:
		return exitWith(exitUsage)
	case found:
		return exitWith(exitFound)
	}
	return nil
}

// compareOptions are what diff and explain compute for each pair: text diffs for --text (the
// first explain.DefaultMaxTexts differing pairs), and for an HTML page as many as it shows.
func compareOptions(e *env, stage string, text bool, format string) explain.Options {
	opt := explain.Options{Stage: stage, Stdin: e.stdin, Log: e.log, MaxFileBytes: e.maxHLO, Text: text}
	if !text && format == string(report.HTML) {
		opt.Text, opt.MaxTexts = true, report.HTMLMaxCards
	}
	return opt
}
