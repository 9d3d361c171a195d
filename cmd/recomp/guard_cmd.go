package main

import (
	"fmt"

	"github.com/recomp/recomp/across"
	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/internal/textutil"
	"github.com/recomp/recomp/ledger"
)

type guardCmd struct {
	outputFlag
	Baseline        string `help:"Known-good families and hashes (written by --write-baseline): any compilation not in it fails." placeholder:"FILE"`
	WriteBaseline   string `name:"write-baseline" help:"Write the families and hashes of these logs to FILE as a baseline, and pass." placeholder:"FILE"`
	MaxRecompiles   int    `name:"max-recompiles" default:"0" help:"Tolerate up to N compilations after warm-up." placeholder:"N"`
	Loads           bool   `help:"Also fail on executable loads after warm-up (executables switching on the device)."`
	AllowNoEvidence bool   `name:"allow-no-evidence" help:"Pass a run whose logs hold no compile line at all (by default that is an error: the compile logging was off)."`
	CoveredBy       string `name:"covered-by" help:"Fail on each run-time compilation whose program and shape the warm-up in this log or run folder did not compile; with --after and the same log (or no LOG), the log's part before the marker is the warm-up." placeholder:"WARMUP"`
	RanksConsistent bool   `name:"ranks-consistent" help:"Also fail when a rank's compile requests depart from the other ranks' (the logs are the ranks of one job)."`
	rankFlags
	warmupFlags
	Logs []string `arg:"" optional:"" name:"LOG" help:"Log files, run folders, or a folder of run folders (one per process of a job) ('-' for stdin, .gz read transparently); with --ranks-consistent also a folder of rank logs."`
}

func (c *guardCmd) Run(e *env) error {
	if err := c.check("guard"); err != nil {
		return err
	}
	gopt, err := across.GuardSettings{Logs: c.Logs, Baseline: c.Baseline, WriteBaseline: c.WriteBaseline, CoveredBy: c.CoveredBy,
		Read: ledger.ReadSettings(c.warmupFlags), Gate: gate.Options{MaxRecompiles: c.MaxRecompiles, Loads: c.Loads, AllowNoEvidence: c.AllowNoEvidence},
		RanksConsistent: c.RanksConsistent, Ranks: explain.RankSettings(c.rankFlags), Stdin: e.stdin, Log: e.log}.Options()
	if err != nil {
		return usage(err)
	}
	if c.WriteBaseline != "" {
		b, err := across.WriteGuardBaseline(c.WriteBaseline, gopt.Logs, gopt.Read)
		if err != nil {
			return usage(err)
		}
		if _, err := fmt.Fprintf(e.stdout, "recomp guard: wrote a baseline of %d module families to %s\n", len(b.Families), textutil.Visible(c.WriteBaseline)); err != nil {
			return usageErr("writing the result: %v", err)
		}
		return nil
	}
	g, err := across.EvaluateGuard(gopt)
	if err != nil {
		return usage(err)
	}
	e.log.Debug("gate", "passed", g.Gate.Passed, "inconclusive", g.Gate.Inconclusive, "reason", g.Gate.Reason)
	return c.answer(e, g)
}
