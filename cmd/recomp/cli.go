package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/hashicorp/go-hclog"
)

// Exit codes, the same for every command.
const (
	exitOK       = 0 // success, equal, gate passed
	exitFound    = 1 // differences found, gate failed
	exitUsage    = 2 // usage or input error
	exitInternal = 3 // a bug in recomp
)

type cli struct {
	LogLevel string `name:"log-level" env:"RECOMP_LOG_LEVEL" default:"warn" help:"Diagnostics on stderr: trace, debug, info, warn, error or off."`

	Scan    scanCmd    `cmd:"" help:"Count compile requests, compilations, cache hits and misses and executable loads in logs."`
	Diff    diffCmd    `cmd:"" help:"Say why two HLO modules or dump folders differ."`
	Explain explainCmd `cmd:"" help:"Explain the recompilations in one run's XLA dump folder."`
	Guard   guardCmd   `cmd:"" help:"CI gate: fail when anything compiles after warm-up."`
	Cache   cacheCmd   `cmd:"" help:"Inventory executable-cache folders, and with --log say what the runs used."`
	Hlo     hloCmd     `cmd:"" help:"HLO text tools: check, fingerprint."`
}

// env is what every command's Run gets.
type env struct {
	stdout, stderr io.Writer
	log            hclog.Logger
	color          bool
}

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func usageErr(format string, args ...any) error {
	return &exitError{exitUsage, fmt.Errorf(format, args...)}
}

type kongExit int

var validLevels = map[string]bool{"trace": true, "debug": true, "info": true, "warn": true, "error": true, "off": true}

func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			if k, ok := r.(kongExit); ok {
				code = int(k)
				return
			}
			fmt.Fprintf(stderr, "recomp: internal error: %v\n%s", r, debug.Stack())
			code = exitInternal
		}
	}()
	var c cli
	parser, err := kong.New(&c,
		kong.Name("recomp"),
		kong.Description("The recompilation detective for XLA-based ML stacks (Graphcore IPU, JAX, TF-XLA, PyTorch/XLA)."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { panic(kongExit(code)) }),
		kong.UsageOnError(),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
	)
	if err != nil {
		fmt.Fprintf(stderr, "recomp: internal error: %v\n", err)
		return exitInternal
	}
	kctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "recomp: error: %v\n", err)
		return exitUsage
	}
	level := strings.ToLower(c.LogLevel)
	if !validLevels[level] {
		fmt.Fprintf(stderr, "recomp: error: --log-level %q: want trace, debug, info, warn, error or off\n", c.LogLevel)
		return exitUsage
	}
	e := &env{stdout: stdout, stderr: stderr, color: useColor(stdout)}
	e.log = hclog.New(&hclog.LoggerOptions{Name: "recomp", Level: hclog.LevelFromString(level), Output: stderr,
		Color: hclog.ColorOff})
	if level == "off" {
		e.log = hclog.NewNullLogger()
	}
	err = kctx.Run(e)
	if err == nil {
		return exitOK
	}
	var xe *exitError
	if errors.As(err, &xe) {
		if xe.err != nil && xe.err.Error() != "" {
			fmt.Fprintf(stderr, "recomp: error: %v\n", xe.err)
		}
		return xe.code
	}
	fmt.Fprintf(stderr, "recomp: error: %v\n", err)
	return exitUsage
}

// found is returned by a command whose result means exit 1 (differences, failed gate) with
// nothing more to print.
var found = &exitError{code: exitFound, err: errors.New("")}

func useColor(w io.Writer) bool {
	if _, ok := os.LookupEnv("NO_COLOR"); ok {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
