package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/internal/textutil"
	"github.com/recomp/recomp/report"
	"github.com/recomp/recomp/runner"
)

type runCmd struct {
	Out       string   `help:"The run folder (it must not exist or be empty); default recomp-runs/<time>-<name>/." placeholder:"DIR"`
	Framework string   `enum:"auto,jax,tf,torch-xla,ipu" default:"auto" help:"Whose evidence to switch on: auto (all), jax, tf, torch-xla or ipu."`
	Dump      string   `enum:"before,all,none" default:"before" help:"HLO dumped into the run folder: before (the modules before optimisation), all, or none."`
	Cache     []string `sep:"none" help:"An executable or persistent-cache folder to snapshot before and after the run (repeat; those named by JAX_COMPILATION_CACHE_DIR, TF_POPLAR_FLAGS and POPTORCH_CACHE_DIR are found)." placeholder:"DIR"`
	Guard     bool     `help:"Judge the run like recomp guard: the exit code is the gate's when the command succeeded."`
	gateFlags
	Format  string   `default:"text" enum:"text,json,markdown" help:"The summary printed at the end (on stderr): text, json or markdown."`
	Command []string `arg:"" passthrough:"" name:"CMD" help:"The command to run, after --."`
}

// gateFlags are the gate's options of recomp run --guard.
type gateFlags struct {
	MaxRecompiles int    `name:"max-recompiles" default:"0" help:"With --guard: tolerate up to N compilations after warm-up." placeholder:"N"`
	Warmup        int    `help:"With --guard: the first N compilations are warm-up." placeholder:"N"`
	After         string `help:"With --guard: everything after the first line matching REGEX is after warm-up." placeholder:"REGEX"`
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
	if _, err := exec.LookPath(cmdline[0]); err != nil {
		return usageErr("%s: %v", cmdline[0], errors.Unwrap(err))
	}
	start := time.Now()
	dir, err := runner.NewFolder(c.Out, "recomp-runs", runner.Name(cmdline), start)
	if err != nil {
		return usageErr("%v", err)
	}
	absDir, _ := filepath.Abs(dir)
	dumpDir := filepath.Join(absDir, runner.DumpName)
	settings, env := runner.Evidence(runner.Framework(c.Framework), runner.DumpMode(c.Dump), dumpDir, os.Environ())
	fmt.Fprintf(e.stderr, "recomp run: run folder %s\n", textutil.Visible(dir))
	for _, s := range settings {
		note := ""
		switch {
		case s.Kept:
			note = " (yours, kept)"
		case s.Effect != "":
			note = " (" + s.Effect + ")"
		}
		fmt.Fprintf(e.stderr, "recomp run: %s=%s%s\n", textutil.Visible(s.Name), textutil.Visible(s.Value), note)
	}
	caches := runner.CacheFolders(env, c.Cache)
	for _, cs := range caches {
		cs.TakeBefore()
	}
	res, err := c.execute(e, absDir, cmdline, env)
	if err != nil {
		return err
	}
	m := c.manifest(cmdline, settings, res, caches, env)
	if c.Dump == string(runner.DumpBefore) {
		if n, err := runner.PruneDump(dumpDir); err != nil {
			e.log.Warn("pruning the dump", "error", err)
		} else {
			e.log.Debug("pruned the dump", "removed", n)
		}
	}
	r, err := c.report(e, dir, m, opt)
	if err != nil {
		return err
	}
	if err := runner.WriteManifest(dir, m); err != nil {
		return err
	}
	if err := writeRunReports(e, dir, r); err != nil {
		return err
	}
	fmt.Fprintln(e.stderr)
	st := report.Style{Color: useColor(e.stderr)}
	if err := report.Render(e.stderr, report.Format(c.Format), r, st); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "\nrecomp run: reports in %s (report.json, report.md, report.html)\n", textutil.Visible(dir))
	switch {
	case res.ExitCode != 0:
		return exitWith(res.ExitCode)
	case r.Gate != nil && r.Gate.Inconclusive:
		return exitWith(exitUsage)
	case r.Gate != nil && !r.Gate.Passed:
		return exitWith(exitFound)
	}
	return nil
}

// execute runs the command, its output to the terminal and to run.log.
func (c *runCmd) execute(e *env, dir string, cmdline, env []string) (*runner.Result, error) {
	logf, err := os.Create(filepath.Join(dir, runner.LogName))
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(logf, 256<<10)
	stdin, _ := e.stdin.(*os.File)
	out, _ := e.stdout.(*os.File)
	terminal := out != nil && runner.IsTerminal(out)
	res, err := runner.Run(runner.Options{Command: cmdline, Env: env, Stdin: stdin, Stdout: e.stdout, Stderr: e.stderr,
		Terminal: terminal, Log: bw, ForwardInterrupt: stdin == nil || !runner.IsTerminal(stdin)})
	if ferr := bw.Flush(); err == nil && ferr != nil {
		err = ferr
	}
	if cerr := logf.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return nil, usageErr("%v", err)
	}
	e.log.Debug("command ended", "exit", res.ExitCode, "signal", res.Signal, "lines", res.Lines, "bytes", res.Bytes,
		"wall", res.End.Sub(res.Start))
	return res, nil
}

func (c *runCmd) manifest(cmdline []string, settings []runner.Setting, res *runner.Result, caches []*runner.CacheSnapshot, env []string) *runner.Manifest {
	wd, _ := os.Getwd()
	host, _ := os.Hostname()
	m := &runner.Manifest{Version: 1, Recomp: reportVersion(), Command: cmdline, WorkDir: wd, Host: host,
		Framework: runner.Framework(c.Framework), Dump: runner.DumpMode(c.Dump), Settings: settings,
		Start: res.Start.UTC(), End: res.End.UTC(), WallSeconds: res.End.Sub(res.Start).Seconds(), ExitCode: res.ExitCode,
		Signal: res.Signal, Forwarded: nonNilStrings(res.Forwarded), OutputLines: res.Lines, OutputBytes: res.Bytes,
		Versions: runner.Versions(runner.PythonOf(cmdline), env), Caches: []runner.CacheSnapshot{}, FirstStepSeconds: -1}
	for _, cs := range caches {
		cs.TakeAfter()
		m.Caches = append(m.Caches, *cs)
	}
	if m.Versions == nil {
		m.Versions = map[string]string{}
	}
	return m
}

// report reads the run folder back the way scan, explain and guard do.
func (c *runCmd) report(e *env, dir string, m *runner.Manifest, opt scanOptions) (*report.Run, error) {
	logPath := filepath.Join(dir, runner.LogName)
	opt.sameProcess = true
	s, err := scanLogs(e, []string{logPath}, opt)
	if err != nil {
		return nil, err
	}
	r := &report.Run{Folder: dir, Manifest: m, Scan: s}
	var first time.Time
	for _, mod := range s.Ledger.Modules {
		for _, u := range mod.Compiled() {
			if !u.Begin.IsZero() && (first.IsZero() || u.Begin.Before(first)) {
				first = u.Begin
			}
		}
	}
	if !first.IsZero() {
		if t := runner.FirstStep(logPath, first); !t.IsZero() {
			m.FirstStepSeconds = t.Sub(m.Start).Seconds()
		}
	}
	if f, ok := runner.OpenFolder(dir); ok && f.Dump != "" && hasFiles(f.Dump) {
		d, err := explainDump(e, f.Dump, "", []string{logPath}, diff.Options{Text: true, MaxTexts: maxTexts})
		if err == nil {
			r.Explain = d
		} else {
			e.log.Warn("explaining the dump", "error", err)
		}
	}
	if c.Guard {
		r.Gate = gate.Evaluate(s.Ledger, readErrors(s), gate.Options{MaxRecompiles: c.MaxRecompiles, Loads: c.Loads})
	}
	return r, nil
}

func hasFiles(dir string) bool {
	entries, err := os.ReadDir(dir)
	return err == nil && len(entries) > 0
}

// writeRunReports writes report.json, report.md and report.html into the run folder.
func writeRunReports(e *env, dir string, r *report.Run) error {
	st := report.Style{Meta: report.Meta{Version: reportVersion(), Command: "recomp " + strings.Join(e.args, " ")}}
	for _, f := range []struct {
		name   string
		format report.Format
	}{{"report.json", report.JSON}, {"report.md", report.Markdown}, {"report.html", report.HTML}} {
		var b bytes.Buffer
		if err := report.Render(&b, f.format, r, st); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func nonNilStrings(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}
