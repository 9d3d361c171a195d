package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/report"
	"github.com/recomp/recomp/runfolder"
	"github.com/recomp/recomp/runner"
)

// sessionCmd is plumbing for a process that turns the evidence on in itself (the pytest plugin
// of the wheel): the same run folder, settings and probe as recomp run, the settings computed
// here so that the plugin holds no list of its own.
type sessionCmd struct {
	Open     sessionOpenCmd     `cmd:"" help:"Make a run folder with the probe; print as JSON the folder, the probe's folder and the variables to set."`
	Close    sessionCloseCmd    `cmd:"" help:"Write the final manifest of a run folder that open made, and remove its probe; with --report, print recomp's answer on it."`
	Report   sessionReportCmd   `cmd:"" help:"Read probe records' framework and name as a JSON list on stdin; print as JSON the program of each and recomp's answer on the run folder so far, as close --report does."`
	Programs sessionProgramsCmd `cmd:"" help:"Read probe records' framework and name as a JSON list on stdin; print the program of each (its module family), as a JSON list."`
}

type sessionOpenCmd struct {
	Out       string   `help:"The run folder (it must not exist or be empty); default recomp-runs/<time>-<name>/." placeholder:"DIR"`
	Framework string   `enum:"auto,${frameworks}" default:"auto" help:"Whose evidence to switch on."`
	Dump      string   `enum:"before,all,none" default:"before" help:"HLO dumped into the run folder."`
	Events    bool     `name:"events-only" help:"Make nothing: print only which probe records are compilations (a process already under recomp run)."`
	ProbeFrom string   `name:"probe-from" help:"A folder holding recomp's probe as this binary writes it (the wheel's copy, compiled by pip): put on PYTHONPATH in place of one written into the run folder when its sitecustomize.py is that text." placeholder:"DIR"`
	Stay      bool     `help:"Print the JSON on one line, then read one more recomp session command as a JSON line on stdin ({\"args\": [...], \"stdin\": \"...\"}), run it and exit with its exit code (an end of input: exit 0). The pytest plugin closes its session so: one start of the binary instead of two."`
	Command   []string `arg:"" optional:"" passthrough:"" name:"CMD" help:"The command the process runs, for the manifest."`
}

func (c *sessionOpenCmd) Run(e *env) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	if c.Events {
		return enc.Encode(runner.OpenedEvents())
	}
	cmdline := c.Command
	if len(cmdline) > 0 && cmdline[0] == "--" {
		cmdline = cmdline[1:]
	}
	out, err := runner.OpenSession(runner.SessionOptions{Out: c.Out, Command: cmdline, Framework: runfolder.Framework(c.Framework),
		Dump: runfolder.DumpMode(c.Dump), Environ: os.Environ(), Start: time.Now(), Log: e.log, Recomp: e.meta.Version, ProbeFrom: c.ProbeFrom})
	if err != nil {
		return usage(err)
	}
	if c.Stay {
		// Ignored from before the line: once it is read, Ctrl-C (it reaches the whole process
		// group) must not end the process that is to close the session.
		signal.Ignore(os.Interrupt)
		defer signal.Reset(os.Interrupt)
		line, err := json.Marshal(out)
		if err != nil {
			return err
		}
		if _, err := e.stdout.Write(append(line, '\n')); err != nil {
			return err
		}
		go warmClose(out.Folder, e)
		return serveOne(e)
	}
	return enc.Encode(out)
}

// warmClose does, while the session's tests run, what the close that session open --stay
// serves will do first (the stacks' log grammar built, the manifest's decoder and the report's
// encoders made), by reading the folder as it is then, so that the session's end waits less
// for its answer: some 1.5 ms of the close's CPU moves to a moment the process is idle. Only
// reads; whatever it finds, fails or panics on is dropped.
func warmClose(dir string, e *env) {
	defer func() { _ = recover() }()
	quiet := *e
	quiet.stdout, quiet.stderr, quiet.log = io.Discard, io.Discard, hclog.NewNullLogger()
	_, _ = runfolder.ReadManifest(filepath.Join(dir, runfolder.ManifestName))
	_, _ = answer(&quiet, dir, nil)
}

// serveOne runs the one recomp session command session open --stay reads on stdin, a JSON
// line {"args": [...], "stdin": "..."}, with that stdin and this process's stdout and stderr,
// and exits with its exit code; an end of input (the process that started this one ended
// without closing its session) exits 0 with nothing done.
func serveOne(e *env) error {
	line, err := bufio.NewReader(e.stdin).ReadBytes('\n')
	if len(bytes.TrimSpace(line)) == 0 {
		if err == nil || err == io.EOF {
			return nil
		}
		return err
	}
	var req struct {
		Args  []string `json:"args"`
		Stdin string   `json:"stdin"`
	}
	if err := json.Unmarshal(line, &req); err != nil {
		return usageErr("session open --stay: the command on stdin: %v", err)
	}
	if len(req.Args) < 2 || req.Args[0] != "session" || req.Args[1] == "open" {
		return usageErr("session open --stay: the command on stdin is not a recomp session command after open: %q", req.Args)
	}
	return exitWith(runWith(req.Args, strings.NewReader(req.Stdin), e.stdout, e.stderr))
}

type sessionCloseCmd struct {
	Exit   int    `default:"0" help:"The process's exit code."`
	Report bool   `help:"Then read on stdin, as a JSON list, probe records' framework and name (the ones the process saw a test or fixture compile), and print as JSON the exit code the manifest holds, their programs, the programs that compiled after warm-up that none of them is, and recomp's answer on the folder (scan --format json)."`
	Judge  bool   `help:"With --report: an exit code of 0 or 5 (pytest's: passed, no test collected) becomes 1 when a program that compiled after warm-up is none of the records' (unblamed), or when the dump holds modules while the log holds no compilation (unjudged)."`
	Folder string `arg:"" name:"DIR" help:"The run folder open made."`
}

// sessionAnswer is what session report prints: the programs of the probe records read on stdin
// and recomp's answer on the run folder.
type sessionAnswer struct {
	// Programs are the programs of the records read on stdin, one per record in order.
	Programs []string `json:"programs"`
	// Unblamed are the programs the verdict says compiled after warm-up that none of Programs
	// is, in the verdict's order.
	Unblamed []string `json:"unblamed"`
	// Unjudged is how many HLO modules the dump holds when the report found no compilation in
	// the log (nothing could be judged); 0 otherwise.
	Unjudged int             `json:"unjudged"`
	Report   json.RawMessage `json:"report"`
}

// sessionClosed is what session close --report prints: the one call a pytest session ends with.
type sessionClosed struct {
	// ExitCode is the exit code the manifest holds: --exit, or 1 when --judge failed the session.
	ExitCode int `json:"exit_code"`
	sessionAnswer
}

func (c *sessionCloseCmd) Run(e *env) error {
	if c.Judge && !c.Report {
		return usageErr("session close: --judge needs --report")
	}
	var names []runner.ProbeName
	if c.Report {
		var err error
		if names, err = readProbeNames(e, "session close"); err != nil {
			return err
		}
	}
	m, err := runner.Close(c.Folder, c.Exit, time.Now())
	if err != nil {
		return usage(err)
	}
	if !c.Report {
		return nil
	}
	a, err := answer(e, c.Folder, names)
	if err != nil {
		return usage(err)
	}
	out := sessionClosed{ExitCode: c.Exit, sessionAnswer: a}
	if c.Judge && (c.Exit == 0 || c.Exit == 5) && (len(a.Unblamed) > 0 || a.Unjudged > 0) {
		// passed, or no test collected: recomp fails the session, and the manifest says so
		m.ExitCode, out.ExitCode = 1, 1
		if err := runfolder.WriteManifest(c.Folder, m); err != nil {
			return usage(err)
		}
	}
	return json.NewEncoder(e.stdout).Encode(out)
}

// answer is recomp's answer on the run folder dir for a process whose tests compiled the probe
// records names.
func answer(e *env, dir string, names []runner.ProbeName) (sessionAnswer, error) {
	a := sessionAnswer{Programs: runner.Programs(names)}
	opt, err := ledger.ReadSettings{}.Options()
	if err != nil {
		return a, err
	}
	opt.Log = e.log
	s, err := explain.ReadScan([]string{dir}, opt)
	if err != nil {
		return a, err
	}
	var b bytes.Buffer
	if err := report.Render(&b, report.JSON, s, report.Style{Meta: e.meta, Root: report.RepoRoot()}); err != nil {
		return a, err
	}
	a.Report = bytes.TrimSpace(b.Bytes())
	a.Unblamed, a.Unjudged = s.Unblamed(a.Programs), s.Unjudged(dir)
	return a, nil
}

type sessionReportCmd struct {
	Folder string `arg:"" name:"DIR" help:"The run folder."`
}

func (c *sessionReportCmd) Run(e *env) error {
	names, err := readProbeNames(e, "session report")
	if err != nil {
		return err
	}
	a, err := answer(e, c.Folder, names)
	if err != nil {
		return usage(err)
	}
	return json.NewEncoder(e.stdout).Encode(a)
}

type sessionProgramsCmd struct{}

func (c *sessionProgramsCmd) Run(e *env) error {
	names, err := readProbeNames(e, "session programs")
	if err != nil {
		return err
	}
	return json.NewEncoder(e.stdout).Encode(runner.Programs(names))
}

// readProbeNames reads the JSON list of probe records' framework and name on stdin.
func readProbeNames(e *env, cmd string) ([]runner.ProbeName, error) {
	var recs []runner.ProbeName
	if err := json.NewDecoder(e.stdin).Decode(&recs); err != nil {
		return nil, usageErr("%s: stdin: %v", cmd, err)
	}
	return recs, nil
}
