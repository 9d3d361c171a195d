package main

import "github.com/recomp/recomp/internal/gctune"

type scanCmd struct {
	outputFlag
	warmupFlags
	Logs []string `arg:"" name:"LOG" help:"Log files, run folders, or a folder of run folders (one per process of a job) ('-' for stdin, .gz read transparently)."`
}

func (c *scanCmd) Run(e *env) error {
	if err := c.check("scan"); err != nil {
		return err
	}
	opt, err := c.options()
	if err != nil {
		return err
	}
	defer gctune.Tune(gctune.ScanHeapGoal)() // (see gctune.ScanHeapGoal)
	s, err := scanLogs(e, c.Logs, opt)
	if err != nil {
		return err
	}
	return c.render(e, s)
}
