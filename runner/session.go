package runner

import (
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/recomp/recomp/frameworks"
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
	// ProbeFrom is a folder holding the probe as this binary writes it (the wheel's compiled
	// copy, see SharedProbe), used in place of one written into the run folder when it is.
	ProbeFrom string
	// Caches are the cache folders the user named; those the environment's cache variables
	// name are added.
	Caches []string
	// Environ is the environment the command would have without recomp (os.Environ()).
	Environ []string
	Start   time.Time
	// Recomp is recomp's version, for the manifest written when the command starts.
	Recomp string
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

	opt  SessionOptions
	keep bool // the folder was an empty one the user named: it stays whatever happens
	dump string
	// userDump says dump is the user's own --xla_dump_to folder: read, never pruned.
	userDump bool
	probe    *Probe
	caches   []*CacheWatch
	log      hclog.Logger
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
	if user := UserDumpDir(opt.Environ); user != "" && opt.Dump != runfolder.DumpNone {
		if ua, err := filepath.Abs(user); err == nil {
			s.dump, s.userDump = ua, true
		}
	}
	if opt.Probe && opt.ProbeFrom != "" {
		s.probe = SharedProbe(abs, opt.ProbeFrom)
	}
	if opt.Probe && s.probe == nil {
		if s.probe, err = WriteProbe(abs); err != nil {
			s.log.Warn("the probe could not be written: running without it", "error", err)
			s.probe = nil
		}
	}
	s.Settings, s.Env = Evidence(opt.Framework, opt.Dump, s.dump, filepath.Join(abs, runfolder.TraceName), s.probe, opt.Environ)
	s.caches = CacheFolders(s.Env, opt.Caches)
	return s, nil
}

// Run runs the command (opt without its Command and Env, which the session gives) with its
// output into the folder's run.log, and removes the probe. A manifest marked Running is written
// first: a folder read back with it says recomp was stopped before the run ended. A command that
// could not start leaves no run: what recomp made of the folder is removed. Once it started, the
// folder stays whatever happens (a full disk: see Result.LogError).
func (s *Session) Run(opt Options) (*Result, error) {
	for _, cs := range s.caches {
		cs.TakeBefore()
	}
	opt.Command, opt.Env = s.opt.Command, s.Env
	abs, _ := filepath.Abs(s.Dir)
	if err := runfolder.WriteStartManifest(abs, s.startManifest()); err != nil {
		s.log.Warn("the manifest of the run's start could not be written", "error", err)
	}
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
	var versions map[string]string
	var compiled map[string]bool
	probeNote := ""
	if s.probe != nil {
		recs, err := runfolder.ReadProbe(s.Dir)
		if err == nil {
			versions, compiled = runfolder.ProbeVersions(recs), compiledStacks(recs)
		}
		if why := ProbeBlocked(s.opt.Command); why != "" {
			probeNote = "recomp's probe did not load: " + why + "; the program's own lines of its compilations are not known"
		} else if err == nil && len(recs) == 0 && res.ExitCode == 0 && PythonOf(s.opt.Command) != "" {
			probeNote = "recomp's probe wrote nothing: it did not load in the program's Python (one that ignores PYTHONPATH?); " +
				"the program's own lines of its compilations are not known"
		}
	}
	m := NewManifest(RunInfo{Command: s.opt.Command, Recomp: recomp, Framework: s.opt.Framework, Dump: s.opt.Dump,
		Settings: s.Settings, Env: s.Env, Caches: s.caches, Grace: grace, Versions: versions, Compiled: compiled}, res)
	m.DumpDir, m.ProbeNote, m.TraceDir = s.userDumpDir(), probeNote, UserTraceDir(s.Settings)
	if s.opt.Dump == runfolder.DumpBefore && !s.userDump { // only what recomp asked XLA to write is pruned
		if n, err := PruneDump(s.dump); err != nil {
			s.log.Warn("pruning the dump", "error", err)
		} else {
			s.log.Debug("pruned the dump", "removed", n)
		}
	} else if !s.userDump {
		DropEmptyDump(s.dump)
	}
	return m
}

// compiledStacks says, for each stack whose probe records each compilation
// (framework.Probe.Compiles), whether the records show it compiling.
func compiledStacks(recs []runfolder.ProbeRecord) map[string]bool {
	out := map[string]bool{}
	for _, p := range frameworks.Probes() {
		if !p.Compiles {
			continue
		}
		out[p.Name] = slices.ContainsFunc(recs, func(r runfolder.ProbeRecord) bool { return r.Framework == p.Name && r.Event == p.Event })
	}
	return out
}

// startManifest is the manifest of the run as it starts: what runs, how, and Running.
func (s *Session) startManifest() *runfolder.Manifest {
	wd, _ := os.Getwd()
	host, _ := os.Hostname()
	return &runfolder.Manifest{Version: 1, Recomp: s.opt.Recomp, Command: s.opt.Command, WorkDir: wd, Host: host,
		Framework: s.opt.Framework, Dump: s.opt.Dump, Settings: settingsOf(s.Settings), Start: s.opt.Start.UTC(),
		Forwarded: []string{}, Versions: map[string]string{}, Caches: []runfolder.CacheSnapshot{}, FirstStepSeconds: -1, Running: true,
		DumpDir: s.userDumpDir(), TraceDir: UserTraceDir(s.Settings)}
}

func (s *Session) userDumpDir() string {
	if s.userDump {
		return s.dump
	}
	return ""
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
