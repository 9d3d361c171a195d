package explain

import (
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/runfolder"
	"github.com/recomp/recomp/verdict"
)

// RunOptions say how a run folder is read back.
type RunOptions struct {
	// Read is how its log is read (the warm-up policy); the log is one process.
	Read ledger.ReadOptions
	// Gate, when set, judges the run like recomp guard.
	Gate *gate.Options
	// Log takes diagnostics (nil: none).
	Log hclog.Logger
}

// Folder reads a run folder back the way scan, explain and guard do: its log, the time from the
// start to the first step (set in m), the recompilations explained from its dump (a dump that
// cannot be explained is logged and left out), and the gate's verdict when one is asked for.
func Folder(dir string, m *runfolder.Manifest, opt RunOptions) (*Run, error) {
	log := opt.Log
	if log == nil {
		log = hclog.NewNullLogger()
	}
	logPath := filepath.Join(dir, runfolder.LogName)
	ro := opt.Read
	ro.SameProcess, ro.Log = true, log
	// The probe's records, read once: their compile stages tell apart the workers the command
	// started (a process each), then they give the compilations the program's own lines.
	recs, probeLeft, probeErr := runfolder.ReadProbeCounted(dir)
	ro.Stages = nil
	if probeErr == nil {
		ro.Stages = stagesOf(recs)
	}
	var settings []runfolder.Setting
	if m != nil {
		settings = m.Settings
	}
	// the folder looked at once: its log, its trace (read with the log, each compilation once:
	// the answer at the end of recomp run says what scan of the folder says) and its dump
	f, opened := runfolder.Open(dir)
	in := ledger.Log{Path: logPath, Until: StoppedLine(m)}
	if opened {
		in.Traces = ledger.TraceFiles(f.Trace, f.TraceSince)
	}
	s, silenced, err := readStandingIn([]ledger.Log{in}, ro, recs, dir, settings)
	if err != nil {
		return nil, err
	}
	if probeErr != nil {
		log.Warn("reading the probe's records", "error", probeErr)
	} else if len(recs) > 0 {
		attachProbe(s.Ledger, recs, ro.Ledger)
	}
	if msg := (runfolder.Contents{ProbeLeftOut: probeLeft}).ProbeCapped(); msg != "" {
		s.Ledger.AddLeftOut(msg)
	}
	relativeSites(s.Ledger, m)
	r := &Run{Folder: dir, Manifest: m, Scan: &Scan{Scan: *s}}
	if first := firstCompilation(s.Ledger); !first.IsZero() {
		if t := runfolder.FirstStep(logPath, first); !t.IsZero() {
			m.FirstStepSeconds = t.Sub(m.Start).Seconds()
		}
	}
	var explained []verdict.Explained
	if opened && f.Dump != "" && hasFiles(f.Dump) {
		if d, err := Load(f.Dump, Options{Log: log, sourceFiles: underWorkDir(m)}); err == nil {
			r.Explain, explained = explain(d, s.Ledger, Options{Text: true, Log: log})
		} else {
			log.Warn("explaining the dump", "error", err)
		}
	}
	setUpFromDump(s.Ledger, explained, ro.Ledger)
	judgedElsewhere(s.Ledger, silenced, r.Explain != nil)
	wall := time.Duration(m.WallSeconds * float64(time.Second))
	r.Scan.Verdict = verdict.Build(verdict.Input{Ledger: s.Ledger, Wall: wall, Explained: explained, Dumped: r.Explain != nil,
		UserName: runfolder.UserName})
	r.Scan.Job = JobOf(s, Options{Log: log})
	if opt.Gate != nil {
		r.Gate = gate.EvaluateScan(s, *opt.Gate)
	}
	return r, nil
}

// firstCompilation is when the first compilation of a report began (zero when no line had a
// clock).
func firstCompilation(rep *ledger.Report) time.Time {
	var first time.Time
	for _, mod := range rep.Modules {
		for _, u := range mod.Compiled() {
			if !u.Begin.IsZero() && (first.IsZero() || u.Begin.Before(first)) {
				first = u.Begin
			}
		}
	}
	return first
}

func hasFiles(dir string) bool {
	entries, err := os.ReadDir(dir)
	return err == nil && len(entries) > 0
}
