package live

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/internal/option"
	"github.com/recomp/recomp/internal/terminal"
	"github.com/recomp/recomp/internal/textutil"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/runfolder"
	"github.com/recomp/recomp/runner"
)

// RunOptions say how recomp run runs a command and follows it.
type RunOptions struct {
	// Session is the run folder, the command and the evidence switched on (its Start, Environ,
	// Log and Recomp included).
	Session runner.SessionOptions
	// Verbose shows the compile logging recomp switched on, and says the settings.
	Verbose bool
	// Live says each compilation after warm-up on Stderr as it happens; Stop, when set, stops
	// the command at one (SIGINT to its group, SIGTERM after StopGrace, then SIGKILL).
	Live      bool
	Stop      StopPolicy
	StopGrace time.Duration
	// Grace is how long output a process the command started holds open is read after it ended.
	Grace time.Duration
	// Read is the warm-up (how the live lines and the report read the log).
	Read ledger.ReadOptions
	// Gate, when set, judges the run like recomp guard.
	Gate *gate.Options
	// The command's standard streams: Stdout and Stderr take its output and recomp's lines
	// (on Stderr); Color colours the live lines.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Color          bool
}

// RunResult is a run that happened: its folder, how the command ended, the manifest and the
// run explained.
type RunResult struct {
	Dir      string
	Command  *runner.Result
	Manifest *runfolder.Manifest
	Run      *explain.Run
	// Lost says what of the run's record could not be written (run.log cut by a full disk, the
	// manifest): no verdict to trust.
	Lost []string
	// Missed counts the compilations after warm-up in the run's evidence when the command was
	// to be stopped at one and was not (the live lines could not see them: another process's
	// probe records, a compilation closed at the log's end): 0 otherwise.
	Missed int
}

// Outcome is what the run's record comes to, the command having succeeded and not been
// stopped: Inconclusive when the record is incomplete (no verdict to trust) or the gate
// inconclusive, Found when a compilation after warm-up fails the run, else Clean.
func (r *RunResult) Outcome() gate.Outcome {
	g := r.Run.Gate
	switch {
	case len(r.Lost) > 0:
		return gate.Inconclusive
	case r.Missed > 0:
		return gate.Found
	case g != nil:
		return g.Outcome()
	}
	return gate.Clean
}

// Run runs the command into a run folder under the evidence switched on, says its compilations
// after warm-up as they happen (and stops it at one when asked), and explains the run folder.
// The error is for a run that did not happen (no command to start, a folder that cannot be
// made); once the command started, what recomp could not write is in Lost.
func Run(opt RunOptions) (*RunResult, error) {
	if opt.Stop.Budget < 0 || opt.StopGrace < 0 {
		return nil, option.New([]string{"compile-budget", "stop-grace"}, "%[1]s and %[2]s want a duration >= 0")
	}
	cmdline := opt.Session.Command
	if _, err := exec.LookPath(cmdline[0]); err != nil {
		return nil, fmt.Errorf("%s: %v", cmdline[0], errors.Unwrap(err))
	}
	ses, err := runner.Prepare(opt.Session)
	if err != nil {
		return nil, err
	}
	opt.sayFolder(ses)
	ropt, lines, stop := opt.runnerOptions(ses)
	defer stop()
	res, err := ses.Run(ropt)
	if err != nil {
		return nil, err
	}
	if lines != nil {
		_, notes := lines.Close()
		for _, n := range notes {
			io.WriteString(ropt.Notes, n.Text)
		}
	}
	m := ses.Manifest(res, opt.Session.Recomp, opt.Grace)
	out := &RunResult{Dir: ses.Dir, Command: res, Manifest: m}
	// From here on the run happened: a file recomp cannot write (a full disk) is said, and the
	// exit code stays the command's (or says the run's record is incomplete), never a lost run.
	if res.LogError != "" {
		out.Lost = append(out.Lost, fmt.Sprintf("run.log is incomplete: %s (%d bytes not written)", res.LogError, res.LogLost))
	}
	if out.Run, err = explain.Folder(ses.Dir, m, explain.RunOptions{Read: opt.Read, Gate: opt.Gate, Log: opt.Session.Log}); err != nil {
		return nil, err
	}
	if err := runfolder.WriteManifest(ses.Dir, m); err != nil {
		out.Lost = append(out.Lost, fmt.Sprintf("the manifest could not be written: %v", err))
	}
	// The report reads every evidence of the run: a recompilation the live lines could not see
	// still fails a run that asked to stop at it.
	if late := out.Run.Scan.Ledger.Summary.AfterWarmup; res.Stopped == "" && opt.Stop.Count > 0 && late >= opt.Stop.Count {
		out.Missed = late
	}
	return out, nil
}

// sayFolder says on Stderr the run folder and what compile logging recomp switched on (with
// Verbose, every setting).
func (opt RunOptions) sayFolder(ses *runner.Session) {
	dir := textutil.Visible(ses.Dir)
	if !opt.Verbose {
		fmt.Fprintf(opt.Stderr, "recomp run: run folder %s; %s\n", dir, textutil.Visible(LoggingOn(string(opt.Session.Framework), ses.Settings, opt.Session.Probe)))
		return
	}
	fmt.Fprintf(opt.Stderr, "recomp run: run folder %s\n", dir)
	for _, l := range runner.Describe(ses.Settings) {
		fmt.Fprintf(opt.Stderr, "recomp run: %s\n", textutil.Visible(l))
	}
}

// runnerOptions are how the session runs the command: its streams, the quiet terminal, and the
// live lines when they are said or the command is to be stopped at a compilation (then lines
// is set); stop ends what follows the probe's records.
func (opt RunOptions) runnerOptions(ses *runner.Session) (ropt runner.Options, lines *Lines, stop func()) {
	var quiet *runner.Quiet
	if !opt.Verbose {
		quiet = runner.QuietOf(ses.Settings)
	}
	stdin, _ := opt.Stdin.(*os.File)
	out, _ := opt.Stdout.(*os.File)
	ropt = runner.Options{Stdin: stdin, Stdout: opt.Stdout, Stderr: opt.Stderr, Terminal: out != nil && terminal.Is(out),
		ForwardInterrupt: stdin == nil || !terminal.Is(stdin), Grace: opt.Grace, Quiet: quiet, Watchdog: runner.WatchdogCommand()}
	stopping := opt.Stop.Count > 0 || opt.Stop.Budget > 0
	if !opt.Live && !stopping {
		return ropt, nil, func() {}
	}
	lopt := ledger.LiveOptions{Ledger: opt.Read.Ledger, Marker: opt.Read.Marker, Name: runfolder.LogName}
	var ends []func()
	if opt.Session.Probe {
		// Workers the command starts write one terminal: the probe's records tell them apart.
		var end func()
		lopt.Stages, end = explain.LiveStages(ses.Dir)
		ends = append(ends, end)
		if off := runner.LoggingOff(ses.Settings); len(off) > 0 {
			// A stack whose compile logging the user switched off: its compilations are the
			// probe's records, followed as the log is.
			lopt.Supplement, end = explain.LiveStandIns(ses.Dir, slices.Sorted(maps.Keys(off)))
			ends = append(ends, end)
		}
	}
	lines = NewLines(lopt, "recomp run", opt.Color, NewTally(opt.Stop))
	if opt.Session.Probe {
		lines.FollowProbe(ses.Dir)
	}
	ropt.Live, ropt.Notes, ropt.OwnGroup, ropt.StopGrace = lines, opt.Stderr, stopping, opt.StopGrace
	if !opt.Live {
		ropt.Notes = io.Discard
	}
	return ropt, lines, func() {
		for i := len(ends) - 1; i >= 0; i-- {
			ends[i]()
		}
	}
}

// LoggingOn says which stacks' compile logging recomp run switched on, and which it left off as
// the user set it (their own setting, kept), and on what those are judged.
func LoggingOn(fw string, settings []runner.Setting, probe bool) string {
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
