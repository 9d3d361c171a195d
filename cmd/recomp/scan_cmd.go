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
