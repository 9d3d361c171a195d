package main

import (
	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/internal/gctune"
	"github.com/recomp/recomp/ledger"
)

type scanCmd struct {
	outputFlag
	warmupFlags
	Logs []string `arg:"" name:"LOG" help:"Log files, run folders, or a folder of run folders (one per process of a job) ('-' for stdin, .gz read transparently)."`
}

func (c *scanCmd) Run(e *env) error {
	if err := c.check("scan"); err != nil {
		return err
	}
	opt, err := ledger.ReadSettings(c.warmupFlags).Options()
	if err != nil {
		return usage(err)
	}
	defer gctune.Tune(gctune.ScanHeapGoal)() // (see gctune.ScanHeapGoal)
	opt.Stdin, opt.Log = e.stdin, e.log
	s, err := explain.ReadScan(c.Logs, opt) // each run folder read once
	if err != nil {
		return usage(err)
	}
	return c.render(e, s)
}

// warmupFlags are shared by scan and guard.
type warmupFlags struct {
	Warmup      int    `help:"The first N compilations of each process are warm-up." placeholder:"N"`
	After       string `help:"Everything after the first line matching REGEX is after warm-up (e.g. 'Epoch 2/')." placeholder:"REGEX"`
	SameProcess bool   `name:"same-process" help:"The logs are parts of one process's log (by default each log is its own process, e.g. one per rank)."`
	AllEvents   bool   `name:"all-events" help:"List every event in JSON (by default the first 1000; all are counted)."`
}
