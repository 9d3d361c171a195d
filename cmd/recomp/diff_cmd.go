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
		return usage(err)
	}
	if r != nil {
		return c.answer(e, r)
	}
	return c.answer(e, d)
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
