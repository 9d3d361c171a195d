package main

import (
	"github.com/recomp/recomp/internal/input"
)

// checkInputs refuses what cannot be read as asked: stdin named twice.
func checkInputs(paths []string) error {
	if err := input.CheckStdin(paths); err != nil {
		return usage(err)
	}
	return nil
}

// warmupFlags are shared by scan and guard.
type warmupFlags struct {
	Warmup      int    `help:"The first N compilations of each process are warm-up." placeholder:"N"`
	After       string `help:"Everything after the first line matching REGEX is after warm-up (e.g. 'Epoch 2/')." placeholder:"REGEX"`
	SameProcess bool   `name:"same-process" help:"The logs are parts of one process's log (by default each log is its own process, e.g. one per rank)."`
	AllEvents   bool   `name:"all-events" help:"List every event in JSON (by default the first 1000; all are counted)."`
}
