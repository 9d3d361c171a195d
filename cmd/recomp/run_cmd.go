package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/internal/textutil"
	"github.com/recomp/recomp/ledger"
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

// loggingOn says which stacks' compile logging recomp run switched on, and which it left off as
// the user set it (their own setting, kept), and on what those are judged.
func loggingOn(fw string, settings []runner.Setting, probe bool) string {
	off := runner.LoggingOff(settings)
	var on, left []string
	for _, name := range frameworks.SelectedNames(fw) {
		if vs := off[name]; len(vs) > 0 {
			left = append(left, fmt.Sprintf("%s (%s)", name, strings.Join(vs, " ")))
		} else {
			on = append(on, name)
		}
	}
	s := "compile logging on for " + strings.Join(on, ", ") + ", to run.log only (-v shows it and the settings)"
	if len(on) == 0 {
		s = "no compile logging switched on (-v shows the settings)"
	}
	if len(left) > 0 {
		judged := "nothing records their compilations (--no-probe): a gate on this run cannot pass"
		if probe {
			judged = "their compilations are judged on the probe's records and the dump"
		}
		s += "; left off as you set it for " + strings.Join(left, ", ") + ": " + judged
	}
	return s
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
	wf := warmupFlags{Warmup: c.Warmup, After: c.After}
	opt, err := wf.options()
	if err != nil {
		return err
	}
	if c.CompileBudget < 0 || c.StopGrace < 0 {
		return usageErr("--compile-budget and --stop-grace want a duration >= 0")
	}
	stopping := c.FailOnRecompile > 0 || c.CompileBudget > 0
	if _, err := exec.LookPath(cmdline[0]); err != nil {
		return usageErr("%s: %v", cmdline[0], errors.Unwrap(err))
	}
	// A closed stdout or stderr (recomp run -- CMD | head -1) must not end recomp: the run
	// goes on to its end and its folder is written. With SIGPIPE caught, a write to a closed
	// pipe fails instead (a caught signal is reset for the command, which keeps its own).
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	defer signal.Stop(pipes)
	ses, err := runner.Prepare(runner.SessionOptions{Out: c.Out, Command: cmdline, Framework: runfolder.Framework(c.Framework),
		Dump: runfolder.DumpMode(c.Dump), Probe: c.Probe, Caches: c.Cache, Environ: os.Environ(), Start: time.Now(), Log: e.log,
		Recomp: reportVersion()})
	if err != nil {
		return usageErr("%v", err)
	}
	dir := ses.Dir
	if c.Verbose {
		fmt.Fprintf(e.stderr, "recomp run: run folder %s\n", textutil.Visible(dir))
		for _, l := range runner.Describe(ses.Settings) {
			fmt.Fprintf(e.stderr, "recomp run: %s\n", textutil.Visible(l))
		}
	} else {
		fmt.Fprintf(e.stderr, "recomp run: run folder %s; %s\n", textutil.Visible(dir), textutil.Visible(loggingOn(c.Framework, ses.Settings, c.Probe)))
	}
	var quiet *runner.Quiet
	if !c.Verbose {
		quiet = runner.QuietOf(ses.Settings)
	}
	stdin, _ := e.stdin.(*os.File)
	out, _ := e.stdout.(*os.File)
	ropt := runner.Options{Stdin: stdin, Stdout: e.stdout, Stderr: e.stderr, Terminal: out != nil && runner.IsTerminal(out),
		ForwardInterrupt: stdin == nil || !runner.IsTerminal(stdin), Grace: c.Grace, Quiet: quiet, Watchdog: runner.WatchdogCommand()}
	var live *liveLines
	if c.Live || stopping {
		tally := &liveTally{policy: stopPolicy{Count: int(c.FailOnRecompile), Budget: c.CompileBudget}}
		lopt := ledger.LiveOptions{Ledger: opt.Ledger, Marker: opt.Marker, Name: runfolder.LogName}
		if c.Probe {
			// Workers the command starts write one terminal: the probe's records tell them apart.
			var stop func()
			lopt.Stages, stop = explain.LiveStages(dir)
			defer stop()
			if off := runner.LoggingOff(ses.Settings); len(off) > 0 {
				// A stack whose compile logging the user switched off: its compilations are the
				// probe's records, followed as the log is.
				var end func()
				lopt.Supplement, end = explain.LiveStandIns(dir, slices.Sorted(maps.Keys(off)))
				defer end()
			}
		}
		live = newLiveLines(lopt, "recomp run", useColor(e.stderr), tally)
		ropt.Live, ropt.Notes, ropt.OwnGroup, ropt.StopGrace = live, e.stderr, stopping, c.StopGrace
		if c.Probe {
			live.probe = dir
		}
		if !c.Live {
			ropt.Notes = io.Discard
		}
	}
	res, err := ses.Run(ropt)
	if err != nil {
		return usageErr("%v", err)
	}
	if live != nil {
		_, notes := live.close()
		for _, n := range notes {
			io.WriteString(ropt.Notes, n.Text)
		}
	}
	m := ses.Manifest(res, reportVersion(), c.Grace)
	ro := explain.RunOptions{Read: opt, Log: e.log}
	if c.Guard {
		ro.Gate = &gate.Options{MaxRecompiles: c.MaxRecompiles, Loads: c.Loads}
	}
	// From here on the run happened: a file recomp cannot write (a full disk) is said, and the
	// exit code stays the command's (or says the run's record is incomplete), never a lost run.
	var lost []string
	if res.LogError != "" {
		lost = append(lost, fmt.Sprintf("run.log is incomplete: %s (%d bytes not written)", res.LogError, res.LogLost))
	}
	r, err := explain.Folder(dir, m, ro)
	if err != nil {
		return usageErr("%v", err)
	}
	if err := runfolder.WriteManifest(dir, m); err != nil {
		lost = append(lost, fmt.Sprintf("the manifest could not be written: %v", err))
	}
	meta := report.Meta{Version: reportVersion(), Command: "recomp " + strings.Join(e.args, " ")}
	reportsErr := report.WriteRunFiles(dir, r, report.Style{Meta: meta})
	if reportsErr != nil {
		lost = append(lost, fmt.Sprintf("the reports could not be written: %v", reportsErr))
	}
	// The summary is a courtesy: the run folder holds the reports, and a terminal that went away
	// (a closed stderr) changes no exit code.
	fmt.Fprintln(e.stderr)
	st := report.Style{Color: useColor(e.stderr), Width: termWidth(e.stderr)}
	if err := report.Render(e.stderr, report.Format(c.Format), r, st); err != nil {
		e.log.Debug("the summary could not be written", "error", err)
	}
	if reportsErr == nil {
		fmt.Fprintf(e.stderr, "\nrecomp run: reports in %s (report.json, report.md, report.html)\n", textutil.Visible(dir))
	} else {
		fmt.Fprintf(e.stderr, "\nrecomp run: run folder %s, without its reports\n", textutil.Visible(dir))
	}
	for _, l := range lost {
		fmt.Fprintf(e.stderr, "recomp run: %s\n", textutil.Visible(l))
	}
	// The report reads every evidence of the run: a recompilation the live lines could not see
	// (the probe's records of another process, a compilation closed at the log's end) still
	// fails a run that asked to stop at it.
	late := r.Scan.Ledger.Summary.AfterWarmup
	missed := res.Stopped == "" && c.FailOnRecompile > 0 && late >= int(c.FailOnRecompile)
	if missed {
		fmt.Fprintf(e.stderr, "recomp run: ✗ %d compilation(s) after warm-up in the run's evidence, which the command was not stopped at: --fail-on-recompile fails the run\n", late)
	}
	switch {
	case res.Stopped != "":
		return exitWith(exitStopped)
	case res.ExitCode != 0:
		return exitWith(res.ExitCode)
	case len(lost) > 0:
		return exitWith(exitUsage) // the run's record is incomplete: no verdict to trust
	case missed:
		return exitWith(exitFound)
	case r.Gate != nil && r.Gate.Inconclusive:
		return exitWith(exitUsage)
	case r.Gate != nil && !r.Gate.Passed:
		return exitWith(exitFound)
	}
	return nil
}
