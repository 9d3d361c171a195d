package main

import (
	"errors"
	"fmt"

	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/internal/textutil"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/report"
)

type guardCmd struct {
	outputFlag
	Baseline        string `help:"Known-good families and hashes (written by --write-baseline): any compilation not in it fails." placeholder:"FILE"`
	WriteBaseline   string `name:"write-baseline" help:"Write the families and hashes of these logs to FILE as a baseline, and pass." placeholder:"FILE"`
	MaxRecompiles   int    `name:"max-recompiles" default:"0" help:"Tolerate up to N compilations after warm-up." placeholder:"N"`
	Loads           bool   `help:"Also fail on executable loads after warm-up (executables switching on the device)."`
	AllowNoEvidence bool   `name:"allow-no-evidence" help:"Pass a run whose logs hold no compile line at all (by default that is an error: the compile logging was off)."`
	warmupFlags
	Logs []string `arg:"" name:"LOG" help:"Log files ('-' for stdin, .gz read transparently)."`
}

func (c *guardCmd) Run(e *env) error {
	if err := c.check("guard"); err != nil {
		return err
	}
	if c.MaxRecompiles < 0 {
		return usageErr("--max-recompiles %d: want a number >= 0", c.MaxRecompiles)
	}
	opt, err := c.options()
	if err != nil {
		return err
	}
	if c.Baseline != "" && (opt.Ledger.Warmup > 0 || opt.Marker != nil) {
		return usageErr("--baseline replaces --warmup and --after: choose one")
	}
	if c.Baseline != "" {
		base, err := gate.ReadBaseline(c.Baseline)
		if err != nil {
			return usageErr("%v", err)
		}
		opt.Ledger.Baseline = base.Families
	}
	s, err := scanLogs(e, c.Logs, opt)
	if err != nil {
		return err
	}
	if c.WriteBaseline != "" {
		return c.writeBaseline(e, s)
	}
	g := &report.Guard{Scan: s, Gate: gate.EvaluateScan(&s.Scan,
		gate.Options{MaxRecompiles: c.MaxRecompiles, Loads: c.Loads, AllowNoEvidence: c.AllowNoEvidence})}
	e.log.Debug("gate", "passed", g.Gate.Passed, "inconclusive", g.Gate.Inconclusive, "reason", g.Gate.Reason)
	if err := c.render(e, g); err != nil {
		return err
	}
	switch {
	case g.Gate.Inconclusive:
		return exitWith(exitUsage)
	case !g.Gate.Passed:
		return exitWith(exitFound)
	}
	return nil
}

func (c *guardCmd) writeBaseline(e *env, s *report.Scan) error {
	if problems := s.ReadErrors(); len(problems) > 0 {
		return usageErr("not writing a baseline from an incomplete log: %s", problems[0])
	}
	if n := s.Ledger.Summary.FamiliesNotListed; n > 0 {
		return usageErr("not writing a baseline: %d module families beyond the first %d of a process are counted, not listed, so the baseline would miss them",
			n, ledger.MaxFamilies)
	}
	b := gate.NewBaseline(s.Ledger)
	if err := gate.WriteBaseline(c.WriteBaseline, b, gate.OpenedInputs(c.Logs, e.stdin)); err != nil {
		if errors.Is(err, gate.ErrWouldOverwriteInput) {
			return usageErr("--write-baseline %v", err)
		}
		return usageErr("%v", err)
	}
	if _, err := fmt.Fprintf(e.stdout, "recomp guard: wrote a baseline of %d module families to %s\n", len(b.Families), textutil.Visible(c.WriteBaseline)); err != nil {
		return usageErr("writing the result: %v", err)
	}
	return nil
}
