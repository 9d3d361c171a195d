package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime/debug"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/hashicorp/go-hclog"
	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/internal/gctune"
	"github.com/recomp/recomp/internal/option"
	"github.com/recomp/recomp/internal/terminal"
	"github.com/recomp/recomp/internal/textutil"
	buildversion "github.com/recomp/recomp/internal/version"
	"github.com/recomp/recomp/live"
	"github.com/recomp/recomp/report"
	"github.com/recomp/recomp/runner"
)

// Exit codes, the same for every command.
const (
	exitOK       = 0 // success, equal, gate passed
	exitFound    = 1 // differences found, gate failed
	exitUsage    = 2 // usage or input error, inconclusive gate
	exitInternal = 3 // a bug in recomp
)

type cli struct {
	globals

	Run     runCmd     `cmd:"" help:"Run a command with every framework's compile evidence switched on, keep its log and dumps in a run folder, and explain the run."`
	Watch   watchCmd   `cmd:"" help:"Follow logs another process writes (files or folders; rotation and truncation followed) and say each compilation after warm-up as it is written; a summary on Ctrl-C."`
	Scan    scanCmd    `cmd:"" help:"Count compile requests, compilations, cache hits and misses and executable loads in logs."`
	Diff    diffCmd    `cmd:"" help:"Say why two HLO modules or dump folders differ."`
	Explain explainCmd `cmd:"" help:"Explain the recompilations in one run's XLA dump folder."`
	Guard   guardCmd   `cmd:"" help:"CI gate: fail when anything compiles after warm-up (or outside what the warm-up covered, or on one rank only)."`
	Ranks   ranksCmd   `cmd:"" help:"Line up the compile requests of a job's ranks: which rank departed, at which step, and why."`
	Cache   cacheCmd   `cmd:"" help:"Inventory executable-cache folders, and with --log say what the runs used."`
	Hlo     hloCmd     `cmd:"" help:"HLO text tools: check, fingerprint."`
	Session sessionCmd `cmd:"" hidden:"" help:"Plumbing for the pytest plugin: open and close a run folder in a process recomp did not start."`
}

// globals are the flags of every command.
type globals struct {
	LogLevel string           `name:"log-level" env:"RECOMP_LOG_LEVEL" default:"warn" help:"Diagnostics on stderr: trace, debug, info, warn, error or off."`
	Version  kong.VersionFlag `help:"Print recomp's version, the VCS revision it was built from, and exit."`
	MaxHLO   int64            `name:"max-hlo-mib" env:"RECOMP_MAX_HLO_MIB" default:"512" placeholder:"MIB" help:"The largest HLO file read (diff, explain, hlo), plain or as gzip inflates it; a larger one is refused. Logs are streamed: no cap."`
}

// plumbing is cli with its plumbing alone (recomp session …), the grammar recomp builds for a
// command line that starts with session: the pytest plugin calls it twice a session, and kong
// builds the grammar of every command it is given on each call (a fifth of such a call's CPU
// with all of cli's). Its commands, flags and help are cli's.
type plumbing struct {
	globals

	Session sessionCmd `cmd:"" hidden:"" help:"Plumbing for the pytest plugin: open and close a run folder in a process recomp did not start."`
}

// env is what every command's Run gets.
type env struct {
	stdout, stderr io.Writer
	stdin          io.Reader
	log            hclog.Logger
	color          bool
	args           []string
	maxHLO         int64 // bytes
	meta           report.Meta
}

// exitError carries an exit code out of a command; an empty error prints nothing. Errors are
// printed with textutil.Visible: a file name or a log line in one cannot break the line or
// reach the terminal as a control sequence.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func usageErr(format string, args ...any) error {
	return &exitError{exitUsage, fmt.Errorf(format, args...)}
}

// usage is err as a usage error; the options an option.Error names are named as their flags.
func usage(err error) error {
	if oe, ok := err.(*option.Error); ok {
		err = errors.New(oe.Named(flagName))
	}
	return &exitError{exitUsage, err}
}

// flagName is how the command line names a library's option: its flag, or LOG.
func flagName(o string) string {
	if o == "log" {
		return "LOG"
	}
	return "--" + o
}

// exitWith ends a command with a code and nothing more to print (the report said it).
func exitWith(code int) error {
	if code == exitOK {
		return nil
	}
	return &exitError{code: code, err: errors.New("")}
}

type kongExit int

var validLevels = map[string]bool{"trace": true, "debug": true, "info": true, "warn": true, "error": true, "off": true}

func run(args []string, stdout, stderr io.Writer) int {
	if runner.IsWatchdog() { // recomp run started this process as its command's watchdog
		return runner.Watchdog(os.Stdin)
	}
	gctune.Limit() // (see gctune.MemoryLimit)
	// From the start, not only while scan reads: a short command (the pytest plugin's session
	// calls) otherwise spends a third of its CPU in the collector's first cycles, which a heap
	// of a few MB never needs (see gctune.ScanHeapGoal).
	defer gctune.Tune(gctune.ScanHeapGoal)()
	return runWith(args, os.Stdin, stdout, stderr)
}

func runWith(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			if k, ok := r.(kongExit); ok {
				code = int(k)
				return
			}
			fmt.Fprintf(stderr, "recomp: internal error: %s\n%s", textutil.Visible(fmt.Sprint(r)), debug.Stack())
			code = exitInternal
		}
	}()
	var c cli
	var model any = &c
	g := &c.globals
	if len(args) > 0 && args[0] == "session" {
		var p plumbing
		model, g = &p, &p.globals
	}
	parser, err := newParser(model, stdout, stderr, func(code int) { panic(kongExit(code)) })
	if err != nil {
		fmt.Fprintf(stderr, "recomp: internal error: %v\n", err)
		return exitInternal
	}
	if len(args) == 0 {
		// A bare recomp is asking what recomp does: the usage, on stderr (stdout may be a
		// pipe), and the usage-error exit code.
		var help cli
		hp, err := newParser(&help, stderr, stderr, func(int) { panic(kongExit(exitUsage)) })
		if err == nil {
			_, _ = hp.Parse([]string{"--help"})
		}
		return exitUsage
	}
	kctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "recomp: error: %s\n", textutil.Visible(err.Error()))
		var pe *kong.ParseError
		if errors.As(err, &pe) && pe.Context != nil {
			fmt.Fprintf(stderr, "run '%s --help' for usage\n", strings.Join(append([]string{"recomp"}, commandPath(pe.Context)...), " "))
		}
		return exitUsage
	}
	level := strings.ToLower(g.LogLevel)
	if !validLevels[level] {
		fmt.Fprintf(stderr, "recomp: error: --log-level %q: want trace, debug, info, warn, error or off\n", g.LogLevel) // %q shows control characters
		return exitUsage
	}
	if g.MaxHLO <= 0 || g.MaxHLO > 1<<20 {
		fmt.Fprintf(stderr, "recomp: error: --max-hlo-mib %d: want 1 to %d\n", g.MaxHLO, 1<<20)
		return exitUsage
	}
	e := &env{stdout: stdout, stderr: stderr, stdin: stdin, color: terminal.Color(stdout), args: args, maxHLO: g.MaxHLO << 20,
		meta: report.Meta{Version: buildversion.Report(), Command: "recomp " + strings.Join(args, " ")}}
	e.log = hclog.New(&hclog.LoggerOptions{Name: "recomp", Level: hclog.LevelFromString(level), Output: stderr,
		Color: hclog.ColorOff})
	if level == "off" {
		e.log = hclog.NewNullLogger()
	}
	e.log.Debug("start", "version", buildversion.String(), "args", args)
	err = kctx.Run(e)
	if err == nil {
		return exitOK
	}
	var xe *exitError
	if errors.As(err, &xe) {
		if xe.err != nil && xe.err.Error() != "" {
			fmt.Fprintf(stderr, "recomp: error: %s\n", textutil.Visible(xe.err.Error()))
		}
		return xe.code
	}
	fmt.Fprintf(stderr, "recomp: error: %s\n", textutil.Visible(err.Error()))
	return exitUsage
}

// exactString decodes a string argument or flag as it was given. Kong's own string mapper goes
// through JSON, which turns bytes that are not UTF-8 into U+FFFD: a file whose name holds such
// bytes could not be named on the command line.
var exactString = kong.MapperFunc(func(ctx *kong.DecodeContext, target reflect.Value) error {
	t, err := ctx.Scan.PopValue("string")
	if err != nil {
		return err
	}
	s, ok := t.Value.(string)
	if !ok {
		s = fmt.Sprint(t.Value)
	}
	target.SetString(s)
	return nil
})

func commandPath(ctx *kong.Context) []string {
	var out []string
	for _, p := range ctx.Path {
		if p.Command != nil {
			out = append(out, p.Command.Name)
		}
	}
	return out
}

// outputFlag is the --format flag of every command; the formats a command writes are
// checked by report.CheckFormat, and named in its help by describeFlags (formatHelp).
type outputFlag struct {
	Format string `short:"f" default:"text" placeholder:"FORMAT" help:"Output format."` // help: describeFlags
}

// render checks the format and writes the report.
func (o outputFlag) render(e *env, r report.Report) error {
	st := report.Style{Color: e.color, Width: terminal.Width(e.stdout), Meta: e.meta, Root: report.RepoRoot()}
	if err := report.Render(e.stdout, report.Format(o.Format), r, st); err != nil {
		return usage(err)
	}
	return nil
}

// answer renders r and ends with its outcome's exit code.
func (o outputFlag) answer(e *env, r interface{ Outcome() gate.Outcome }) error {
	if err := o.render(e, r); err != nil {
		return err
	}
	return exitWith(outcomeExit[r.Outcome()])
}

// outcomeExit and watchExit are the exit codes of what an answer comes to.
var (
	outcomeExit = map[gate.Outcome]int{gate.Clean: exitOK, gate.Found: exitFound, gate.Inconclusive: exitUsage}
	watchExit   = map[live.WatchEnd]int{live.Interrupted: exitOK, live.Failed: exitFound, live.Inconclusive: exitUsage}
)

func (o outputFlag) check(command string) error {
	if err := report.CheckFormat(command, report.Format(o.Format)); err != nil {
		return usage(err)
	}
	return nil
}
