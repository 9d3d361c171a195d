package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/internal/terminal"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/live"
	"github.com/recomp/recomp/report"
	"github.com/recomp/recomp/runfolder"
	"github.com/recomp/recomp/runner"
)

type runCmd struct {
	Out             string        `help:"The run folder (it must not exist or be empty); default recomp-runs/<time>-<name>/." placeholder:"DIR"`
	Framework       string        `enum:"auto,${frameworks}" default:"auto" help:"Whose evidence to switch on: auto (all) or one of ${frameworks}."`
	Dump            string        `enum:"before,all,none" default:"before" help:"HLO dumped into the run folder: before (the modules before optimisation), all, or none."`
	Cache           []string      `sep:"none" help:"An executable or persistent-cache folder to snapshot before and after the run (repeat; those the frameworks' cache variables name are found)." placeholder:"DIR"`
	Guard           bool          `help:"Judge the run like recomp guard: the exit code is the gate's when the command succeeded."`
	Grace           time.Duration `default:"3s" help:"How long to keep reading output that a process the command started holds open after the command exited." placeholder:"DURATION"`
	Probe           bool          `default:"true" negatable:"" help:"Load recomp's Python probe (a sitecustomize, chained to yours) to record the program's own line of each JAX compilation, tf.function trace and Keras fit/evaluate/predict."`
	Verbose         bool          `short:"v" help:"Show on the terminal the compile logging recomp switched on (by default it goes to run.log only)."`
	Live            bool          `default:"true" negatable:"" help:"Say on the terminal each compilation after warm-up as it happens: the program, what changed, the user's line, the compile time (one line per program every 10 s at most; the repeats between are summed)."`
	FailOnRecompile failCount     `name:"fail-on-recompile" placeholder:"N" help:"Stop the command at the first compilation after warm-up (=N: at the Nth): SIGINT to its process group, SIGTERM after --stop-grace, then SIGKILL; the run folder and its reports are kept and say so; recomp exits 4."`
	CompileBudget   time.Duration `name:"compile-budget" placeholder:"DURATION" help:"Stop the command (as --fail-on-recompile) once the compilations after warm-up took longer than DURATION in all (e.g. 30s)."`
	StopGrace       time.Duration `name:"stop-grace" default:"5s" placeholder:"DURATION" help:"How long a command stopped at a recompilation has after SIGINT, then after SIGTERM."`
	gateFlags
	Format  string   `default:"text" enum:"text,json,markdown" help:"The summary printed at the end (on stderr): text, json or markdown."`
	Command []string `arg:"" passthrough:"" name:"CMD" help:"The command to run, after --."`
}

// gateFlags are the gate's options of recomp run --guard.
type gateFlags struct {
	MaxRecompiles int    `name:"max-recompiles" default:"0" help:"With --guard: tolerate up to N compilations after warm-up." placeholder:"N"`
	Warmup        int    `help:"The first N compilations are warm-up (for --guard, the live lines and --fail-on-recompile)." placeholder:"N"`
	After         string `help:"Everything after the first line matching REGEX is after warm-up (for --guard, the live lines and --fail-on-recompile)." placeholder:"REGEX"`
	Loads         bool   `help:"With --guard: also fail on executable loads after warm-up."`
}

func (c *runCmd) Run(e *env) error {
	cmdline := c.Command
	if len(cmdline) > 0 && cmdline[0] == "--" {
		cmdline = cmdline[1:]
	}
	if len(cmdline) == 0 {
		return usageErr("no command to run: recomp run [flags] -- CMD ARGS...")
	}
	opt, err := ledger.ReadSettings{Warmup: c.Warmup, After: c.After}.Options()
	if err != nil {
		return usage(err)
	}
	// A closed stdout or stderr (recomp run -- CMD | head -1) must not end recomp: the run
	// goes on to its end and its folder is written. With SIGPIPE caught, a write to a closed
	// pipe fails instead (a caught signal is reset for the command, which keeps its own).
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	defer signal.Stop(pipes)
	ropt := live.RunOptions{Session: runner.SessionOptions{Out: c.Out, Command: cmdline, Framework: runfolder.Framework(c.Framework),
		Dump: runfolder.DumpMode(c.Dump), Probe: c.Probe, Caches: c.Cache, Environ: os.Environ(), Start: time.Now(), Log: e.log,
		Recomp: e.meta.Version}, Verbose: c.Verbose, Live: c.Live, StopGrace: c.StopGrace, Grace: c.Grace, Read: opt,
		Stop:  live.StopPolicy{Count: int(c.FailOnRecompile), Budget: c.CompileBudget},
		Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr, Color: terminal.Color(e.stderr)}
	if c.Guard {
		ropt.Gate = &gate.Options{MaxRecompiles: c.MaxRecompiles, Loads: c.Loads}
	}
	res, err := live.Run(ropt)
	if err != nil {
		return usage(err)
	}
	st := report.Style{Color: terminal.Color(e.stderr), Width: terminal.Width(e.stderr), Meta: e.meta}
	if err := report.WriteRunSummary(e.stderr, report.Format(c.Format), res, st); err != nil {
		e.log.Debug("the summary could not be written", "error", err)
	}
	return runExit(res)
}

// runExit is recomp run's exit code: 4 when it stopped the command, else the command's own,
// else its outcome's (live.RunResult.Outcome).
func runExit(res *live.RunResult) error {
	switch {
	case res.Command.Stopped != "":
		return exitWith(exitStopped)
	case res.Command.ExitCode != 0:
		return exitWith(res.Command.ExitCode)
	}
	return exitWith(outcomeExit[res.Outcome()])
}
