package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/live"
)

type watchCmd struct {
	Warmup          int           `help:"The first N compilations of each log are warm-up." placeholder:"N"`
	After           string        `help:"Everything after the first line matching REGEX is after warm-up (e.g. 'Epoch 2/')." placeholder:"REGEX"`
	FailOnRecompile failCount     `name:"fail-on-recompile" placeholder:"N" help:"Exit 1 at the first compilation after warm-up (=N: at the Nth), after its line and the summary."`
	CompileBudget   time.Duration `name:"compile-budget" placeholder:"DURATION" help:"Exit 1 once the compilations after warm-up took longer than DURATION in all."`
	Interval        time.Duration `default:"250ms" placeholder:"DURATION" help:"How often the logs are looked at (they are polled)."`
	Logs            []string      `arg:"" name:"LOG" help:"Log files (they may not exist yet) or folders (their files, those that appear later too), written by another process."`
}

func (c *watchCmd) Run(e *env) error {
	opt, err := ledger.ReadSettings{Warmup: c.Warmup, After: c.After}.Options()
	if err != nil {
		return usage(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	end, err := live.Watch(ctx, c.Logs, c.Interval, live.WatchOptions{Out: e.stdout, Warn: e.stderr, Color: e.color,
		Ledger: ledger.LiveOptions{Ledger: opt.Ledger, Marker: opt.Marker},
		Stop:   live.StopPolicy{Count: int(c.FailOnRecompile), Budget: c.CompileBudget}})
	if err != nil {
		return usage(err)
	}
	return exitWith(watchExit[end])
}
