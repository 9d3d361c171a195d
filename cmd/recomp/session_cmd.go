package main

import (
	"encoding/json"
	"os"
	"time"

	"github.com/recomp/recomp/runfolder"
	"github.com/recomp/recomp/runner"
)

// sessionCmd is plumbing for a process that turns the evidence on in itself (the pytest plugin
// of the wheel): the same run folder, settings and probe as recomp run, the settings computed
// here so that the plugin holds no list of its own.
type sessionCmd struct {
	Open     sessionOpenCmd     `cmd:"" help:"Make a run folder with the probe; print as JSON the folder, the probe's folder and the variables to set."`
	Close    sessionCloseCmd    `cmd:"" help:"Write the final manifest of a run folder that open made, and remove its probe."`
	Programs sessionProgramsCmd `cmd:"" help:"Read probe records' framework and name as a JSON list on stdin; print the program of each (its module family), as a JSON list."`
}

type sessionOpenCmd struct {
	Out       string   `help:"The run folder (it must not exist or be empty); default recomp-runs/<time>-<name>/." placeholder:"DIR"`
	Framework string   `enum:"auto,${frameworks}" default:"auto" help:"Whose evidence to switch on."`
	Dump      string   `enum:"before,all,none" default:"before" help:"HLO dumped into the run folder."`
	Events    bool     `name:"events-only" help:"Make nothing: print only which probe records are compilations (a process already under recomp run)."`
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
		Dump: runfolder.DumpMode(c.Dump), Environ: os.Environ(), Start: time.Now(), Log: e.log, Recomp: e.meta.Version})
	if err != nil {
		return usage(err)
	}
	return enc.Encode(out)
}

type sessionCloseCmd struct {
	Exit   int    `default:"0" help:"The process's exit code."`
	Folder string `arg:"" name:"DIR" help:"The run folder open made."`
}

func (c *sessionCloseCmd) Run(e *env) error {
	if _, err := runner.Close(c.Folder, c.Exit, time.Now()); err != nil {
		return usage(err)
	}
	return nil
}

type sessionProgramsCmd struct{}

func (c *sessionProgramsCmd) Run(e *env) error {
	var recs []runner.ProbeName
	if err := json.NewDecoder(e.stdin).Decode(&recs); err != nil {
		return usageErr("session programs: stdin: %v", err)
	}
	return json.NewEncoder(e.stdout).Encode(runner.Programs(recs))
}
