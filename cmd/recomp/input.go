package main

import (
	"github.com/recomp/recomp/explain"

	"github.com/recomp/recomp/internal/input"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/logscan"
)

// checkInputs refuses what cannot be read as asked: stdin named twice.
func checkInputs(paths []string) error {
	if err := input.CheckStdin(paths); err != nil {
		return usageErr("%v", err)
	}
	return nil
}

// scanLogs reads the logs into a scan report with its verdict (explain.ReadScan: each run
// folder read once).
func scanLogs(e *env, paths []string, opt ledger.ReadOptions) (*explain.Scan, error) {
	opt.Stdin, opt.Log = e.stdin, e.log
	s, err := explain.ReadScan(paths, opt)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return s, nil
}

// warmupFlags are shared by scan and guard.
type warmupFlags struct {
	Warmup      int    `help:"The first N compilations of each process are warm-up." placeholder:"N"`
	After       string `help:"Everything after the first line matching REGEX is after warm-up (e.g. 'Epoch 2/')." placeholder:"REGEX"`
	SameProcess bool   `name:"same-process" help:"The logs are parts of one process's log (by default each log is its own process, e.g. one per rank)."`
	AllEvents   bool   `name:"all-events" help:"List every event in JSON (by default the first 1000; all are counted)."`
}

func (w warmupFlags) options() (ledger.ReadOptions, error) {
	if w.Warmup < 0 {
		return ledger.ReadOptions{}, usageErr("--warmup %d: want a number >= 0", w.Warmup)
	}
	if w.Warmup > 0 && w.After != "" {
		return ledger.ReadOptions{}, usageErr("--warmup and --after are exclusive: choose one warm-up boundary")
	}
	opt := ledger.ReadOptions{Ledger: ledger.Options{Warmup: w.Warmup}, SameProcess: w.SameProcess, AllEvents: w.AllEvents}
	if w.After == "" {
		return opt, nil
	}
	re, err := logscan.NewLineRegexp(w.After)
	if err != nil {
		return opt, usageErr("--after: %v", err)
	}
	opt.Marker = re
	return opt, nil
}
