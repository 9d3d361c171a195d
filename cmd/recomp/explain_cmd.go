package main

import (
	"github.com/recomp/recomp/explain"
)

type explainCmd struct {
	outputFlag
	Text  bool     `help:"Add a unified text diff of each changed computation."`
	Stage string   `help:"Dump stage to compare: before, after, or a stage name (default: before_optimizations when present)." placeholder:"STAGE"`
	Log   []string `sep:"none" help:"Logs of the same run: link each compilation and hash to its dump (repeat for several)." placeholder:"LOG"`
	Dump  string   `arg:"" name:"DUMP_DIR" help:"The run's --xla_dump_to folder, or a run folder of recomp run."`
}

func (c *explainCmd) Run(e *env) error {
	if err := c.check("explain"); err != nil {
		return err
	}
	d, err := explain.Dump(c.Dump, c.Log, compareOptions(e, c.Stage, c.Text, c.Format))
	if err != nil {
		return usage(err)
	}
	return c.answer(e, d)
}
