package explain

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/recomp/recomp/internal/input"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/logscan"
	"github.com/recomp/recomp/runfolder"
	"github.com/recomp/recomp/verdict"
)

// Logs reads logs into a scan report with its verdict (recomp scan and guard). A run folder of
// recomp run given alone lends its manifest's wall time (shares of the run) and its probe's
// lines of the program's own code; its run.log given alone lends the probe's compile stages, as
// the folder does, so that the workers the command started are processes of their own.
func Logs(paths []string, opt ledger.ReadOptions) (*Scan, error) {
	return logsOf(paths, opt, newRuns())
}

// logsOf is Logs, the run folders among paths looked at once (rs).
func logsOf(paths []string, opt ledger.ReadOptions, rs *runs) (*Scan, error) {
	var f runfolder.Folder
	var c runfolder.Contents
	folder := false
	if len(paths) == 1 {
		if r := rs.read(paths[0]); r != nil {
			f, c, folder = r.f, r.c, true
		}
	}
	if len(paths) == 1 && opt.Stages == nil {
		if folder {
			opt.Stages = stagesOf(probeRecords(c)) // workers the command started: a process each
		} else {
			opt.Stages = ownStages(paths[0], rs)
		}
	}
	logs := rs.logs(paths)
	var s *ledger.Scan
	var silenced []ledger.Silenced
	var err error
	if folder {
		var settings []runfolder.Setting
		if c.Manifest != nil {
			settings = c.Manifest.Settings
		}
		s, silenced, err = readStandingIn(logs, opt, probeRecords(c), f.Dir, settings)
	} else {
		s, err = ledger.ReadLogs(logs, opt)
	}
	if err != nil {
		return nil, err
	}
	var wall time.Duration
	var explained []verdict.Explained
	dumped := false
	if folder {
		wall = folderFacts(c, s.Ledger, opt.Ledger)
		relativeSites(s.Ledger, c.Manifest)
		if len(s.Inputs) == 1 {
			noteFolder(&s.Inputs[0], c)
			noteSharedDump(&s.Inputs[0], c.Manifest, s.Ledger)
		}
		if compiledAgain(s.Ledger) {
			explained, dumped = folderDump(f, s.Ledger, opt, underWorkDir(c.Manifest))
		} else { // nothing for the dump to explain: its modules are not parsed
			dumped = f.Dump != "" && hasFiles(f.Dump)
		}
		judgedElsewhere(s.Ledger, silenced, dumped)
	}
	return &Scan{Scan: *s, Verdict: verdict.Build(verdict.Input{Ledger: s.Ledger, Wall: wall, Explained: explained, Dumped: dumped, UserName: rs.userName}), Job: jobOf(s, Options{Log: opt.Log}, rs),
		Manifest: c.Manifest}, nil
}

// ownStages are the probe's compile stages of the run folder whose run.log path is (so that the
// workers the command started are processes of their own), nil for another log.
func ownStages(path string, rs *runs) []ledger.StageRecord {
	if r := rs.of(path); r != nil && r.f.Manifest != "" && input.Same(r.f.Log, path) {
		if recs, err := r.probe(); err == nil {
			return stagesOf(recs)
		}
	}
	return nil
}

// compiledAgain says whether the logs show a program compiled more than once (set-up the first
// step built included) or compilations after warm-up: what a run folder's dump is read to
// explain. A run where every program compiled once has nothing for it to say, and scan of its
// folder parses no HLO.
func compiledAgain(rep *ledger.Report) bool {
	if rep.Summary.AfterWarmup > 0 || rep.Summary.Recompilations > 0 {
		return true
	}
	for _, m := range rep.Modules {
		if m.Recompiled || m.Compilations > 1 {
			return true
		}
	}
	return false
}

// loadDump reads a run folder's dump (Load; a test counts its calls).
var loadDump = Load

// folderDump explains a run folder's dump against its log, as explain RUN does: the verdict names
// the causes the dump shows (no advice to dump what is dumped), and under the default warm-up a
// recompilation the dump shows to be set-up is taken back. It says whether the folder had a dump.
func folderDump(f runfolder.Folder, rep *ledger.Report, opt ledger.ReadOptions, rel func(string) string) ([]verdict.Explained, bool) {
	if f.Dump == "" || !hasFiles(f.Dump) {
		return nil, false
	}
	d, err := loadDump(f.Dump, Options{Log: opt.Log, sourceFiles: rel})
	if err != nil {
		if opt.Log != nil {
			opt.Log.Warn("explaining the run folder's dump", "dump", f.Dump, "error", err)
		}
		return nil, false
	}
	_, explained := explain(d, rep, Options{Log: opt.Log})
	setUpFromDump(rep, explained, opt.Ledger)
	return explained, true
}

// JobOf lines up the processes of a scan as a job's ranks when a launcher named every one of
// them (its prefix, or its environment in a run folder's manifest); nil otherwise. The
// processes of one command that its probe told apart (pytest -n's workers, a program's worker
// processes: ranks "pid N") are no job's ranks: they need not do the same work.
func JobOf(s *ledger.Scan, opt Options) *Ranks { return jobOf(s, opt, newRuns()) }

func jobOf(s *ledger.Scan, opt Options, rs *runs) *Ranks {
	if len(s.Ledger.Sequences) < 2 {
		return nil
	}
	for _, sq := range s.Ledger.Sequences {
		if strings.HasPrefix(sq.Rank, "pid ") {
			return nil
		}
		if sq.Rank == "" {
			if r, _ := rs.manifestRank(stripRank(sq.File)); r == "" {
				return nil
			}
		}
	}
	return RanksOf(s, RanksOptions{Options: opt, runs: rs})
}

// noteFolder adds what a run folder lacks (runfolder.Contents.Notes: a run cut short) to the
// warnings of its run.log, at its last line.
func noteFolder(in *ledger.Input, c runfolder.Contents) {
	in.Incomplete = c.Incomplete()
	for _, n := range c.Notes() {
		in.Warnings = append(in.Warnings, logscan.Warning{File: in.Path, Line: in.Lines, Message: n})
		in.WarningCount++
	}
}

// noteSharedDump warns, on a run folder's log, when several processes that compiled dumped into
// the user's own dump folder (their XLA_FLAGS' --xla_dump_to, which recomp leaves as it is): XLA
// numbers each process's modules from 0, so their files overwrite each other's, and the causes
// the dump gives may mix processes. recomp's own dump gives each process a folder.
func noteSharedDump(in *ledger.Input, m *runfolder.Manifest, rep *ledger.Report) {
	if m == nil || m.DumpDir == "" {
		return
	}
	pids := map[int]bool{}
	for _, mod := range rep.Modules {
		for _, u := range mod.Units {
			if u.Compiled && u.PID != 0 {
				pids[u.PID] = true
			}
		}
	}
	if len(pids) < 2 {
		return
	}
	in.Warnings = append(in.Warnings, logscan.Warning{File: in.Path, Line: in.Lines, Message: fmt.Sprintf(
		"%d processes compiled and dumped into your own dump folder %s: XLA numbers each process's modules from 0, so one's files "+
			"overwrite another's, and the causes the dump gives may be another process's; leave --xla_dump_to out of XLA_FLAGS and "+
			"recomp dumps each process into a folder of its own", len(pids), m.DumpDir)})
	in.WarningCount++
}

// folderFacts is what a run folder of recomp run lends a report besides its log: the wall time
// its manifest records (0 when unreadable), and its probe's lines of the program's own code,
// given to the ledger's compilations.
func folderFacts(c runfolder.Contents, rep *ledger.Report, opt ledger.Options) time.Duration {
	var wall time.Duration
	if c.Manifest != nil {
		wall = time.Duration(c.Manifest.WallSeconds * float64(time.Second))
	}
	if recs := probeRecords(c); len(recs) > 0 {
		attachProbe(rep, recs, opt)
	}
	if msg := c.ProbeCapped(); msg != "" {
		rep.AddLeftOut(msg)
	}
	return wall
}

// probeRecords are the probe's records a run folder held, none when reading them failed.
func probeRecords(c runfolder.Contents) []runfolder.ProbeRecord {
	if c.ProbeErr != nil {
		return nil
	}
	return c.Probe
}

// underWorkDir names a file relative to the run's working directory (its manifest's work_dir)
// where it lies under it, and as it is otherwise; nil when the manifest names no absolute one.
func underWorkDir(m *runfolder.Manifest) func(string) string {
	if m == nil || !filepath.IsAbs(m.WorkDir) {
		return nil
	}
	return func(file string) string {
		if !filepath.IsAbs(file) {
			return file
		}
		r, err := filepath.Rel(m.WorkDir, file)
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return file
		}
		return r
	}
}

// relativeSites names the program's own files in a run folder's report relative to the run's
// working directory (its manifest's work_dir), where they lie under it: a path the user can open
// from where they ran the command, not the machine's. Files outside it stay absolute.
func relativeSites(rep *ledger.Report, m *runfolder.Manifest) {
	rel := underWorkDir(m)
	if rel == nil {
		return
	}
	for _, mod := range rep.Modules {
		for _, u := range mod.Units {
			u.Site.File = rel(u.Site.File)
		}
	}
	for _, sq := range rep.Sequences {
		for i := range sq.Entries {
			if s := sq.Entries[i].Site; s != "" {
				site := ledger.ParseSite(s)
				if site.File != "" && rel(site.File) != site.File {
					site.File = rel(site.File)
					sq.Entries[i].Site = site.String()
				}
			}
		}
	}
}
