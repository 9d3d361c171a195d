package main

import (
	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/report"
)

type diffCmd struct {
	outputFlag
	Text  bool   `help:"Add a unified text diff of each changed computation (bounded: see README)."`
	Stage string `help:"Dump stage to compare: before, after, or a stage name (default: before_optimizations when both dumps have it, else after_optimizations when both have it)." placeholder:"STAGE"`
	A     string `arg:"" name:"A" help:"HLO file or XLA dump folder of the first run ('-' for stdin, .gz read transparently)."`
	B     string `arg:"" name:"B" help:"HLO file or XLA dump folder of the second run."`
}

func (c *diffCmd) Run(e *env) error {
	if err := c.check("diff"); err != nil {
		return err
	}
	d, err := explain.Dumps(c.A, c.B, compareOptions(e, c.Stage, c.Text, c.Format))
	if err != nil {
		return usageErr("%v", err)
	}
	if err := c.render(e, d); err != nil {
		return err
	}
	return diffExit(d)
}

// diffExit is the exit code of diff and explain: 2 when a module could not be read (the
// answer may be incomplete), 1 when anything differs or stayed unpaired, 0 otherwise.
func diffExit(d *report.Diff) error {
	switch {
	case len(d.Problems) > 0:
		return exitWith(exitUsage)
	case d.Differs():
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
