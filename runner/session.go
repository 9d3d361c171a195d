package runner

import (
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/recomp/recomp/runfolder"
)

// SessionOptions say how recomp run runs a command.
type SessionOptions struct {
	// Out is the run folder the user named ("" for recomp-runs/<time>-<name>/).
	Out       string
	Command   []string
	Framework runfolder.Framework
	Dump      runfolder.DumpMode
	// Probe loads the Python probe (see WriteProbe); a probe that cannot be written is logged
	// and left out.
	Probe bool
	// Caches are the cache folders the user named; those the environment's cache variables
	// name are added.
	Caches []string
	// Environ is the environment the command would have without recomp (os.Environ()).
	Environ []string
	Start   time.Time
	// Log takes diagnostics (nil: none).
	Log hclog.Logger
}

// Session is one run of recomp run: its folder, the evidence settings and the environment the
// command runs with, the probe and the cache folders watched. Prepare makes one, Run runs the
// command into it, Manifest says what happened.
type Session struct {
	// Dir is the run folder, as named or made.
	Dir string
	// Settings are what recomp switches on (and the user's values it kept); Env the command's
	// environment with them.
	Settings []Setting
	Env      []string

	opt    SessionOptions
	keep   bool // the folder was an empty one the user named: it stays whatever happens
	dump   string
	probe  *Probe
	caches []*CacheWatch
	log    hclog.Logger
}

// Prepare makes the run folder and works out what the command runs with.
func Prepare(opt SessionOptions) (*Session, error) {
	s := &Session{opt: opt, log: opt.Log}
	if s.log == nil {
		s.log = hclog.NewNullLogger()
	}
	s.keep = opt.Out != "" && isDir(opt.Out)
	dir, err := NewFolder(opt.Out, "recomp-runs", Name(opt.Command), opt.Start)
	if err != nil {
		return nil, err
	}
	s.Dir = dir
	abs, _ := filepath.Abs(dir)
	s.dump = filepath.Join(abs, runfolder.DumpName)
	if opt.Probe {
		if s.probe, err = WriteProbe(abs); err != nil {
			s.log.Warn("the probe could not be written: running without it", "error", err)
			s.probe = nil
		}
	}
	s.Settings, s.Env = Evidence(opt.Framework, opt.Dump, s.dump, s.probe, opt.Environ)
	s.caches = CacheFolders(s.Env, opt.Caches)
	return s, nil
}

// Run runs the command (opt without its Command and Env, which the session gives) with its
// output into the folder's run.log, and removes the probe. A command that could not start
// leaves no run: what recomp made of the folder is removed.
func (s *Session) Run(opt Options) (*Result, error) {
	for _, cs := range s.caches {
		cs.TakeBefore()
	}
	opt.Command, opt.Env = s.opt.Command, s.Env
	abs, _ := filepath.Abs(s.Dir)
	res, err := Capture(abs, opt)
	if s.probe != nil {
		if perr := s.probe.Remove(); perr != nil {
			s.log.Warn("removing the probe", "error", perr)
		}
	}
	if err != nil {
		if derr := DiscardFolder(s.Dir, s.keep); derr != nil {
			s.log.Warn("removing the run folder of a command that did not start", "dir", s.Dir, "error", derr)
		}
		return nil, err
	}
	s.log.Debug("command ended", "exit", res.ExitCode, "signal", res.Signal, "lines", res.Lines, "bytes", res.Bytes,
		"wall", res.End.Sub(res.Start))
	return res, nil
}

// Manifest is the manifest of the run that ended with res (recomp is recomp's version, grace
// the time output held open was read for); the caches are looked at again and a dump of the
// modules before optimisation is pruned to them.
func (s *Session) Manifest(res *Result, recomp string, grace time.Duration) *runfolder.Manifest {
	m := NewManifest(RunInfo{Command: s.opt.Command, Recomp: recomp, Framework: s.opt.Framework, Dump: s.opt.Dump,
		Settings: s.Settings, Env: s.Env, Caches: s.caches, Grace: grace}, res)
	if s.opt.Dump == runfolder.DumpBefore {
		if n, err := PruneDump(s.dump); err != nil {
			s.log.Warn("pruning the dump", "error", err)
		} else {
			s.log.Debug("pruned the dump", "removed", n)
		}
	}
	return m
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
