package explain

import (
	"path/filepath"
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
	if len(paths) == 1 && opt.Stages == nil {
		if f, ok := runfolder.Open(paths[0]); ok {
			opt.Stages = probeStages(f.Dir) // workers the command started: a process each
		} else if filepath.Base(paths[0]) == runfolder.LogName {
			if f, ok := runfolder.Open(filepath.Dir(paths[0])); ok && f.Manifest != "" && input.Same(f.Log, paths[0]) {
				opt.Stages = probeStages(f.Dir)
			}
		}
	}
	s, err := ledger.ReadLogs(ledger.Files(paths), opt)
	if err != nil {
		return nil, err
	}
	var wall time.Duration
	var explained []verdict.Explained
	dumped := false
	if len(paths) == 1 {
		if f, ok := runfolder.Open(paths[0]); ok {
			wall = folderFacts(f, s.Ledger, opt.Ledger)
			if len(s.Inputs) == 1 {
				noteFolder(&s.Inputs[0], f)
			}
			explained, dumped = folderDump(f, s.Ledger, opt)
		}
	}
	return &Scan{Scan: *s, Verdict: verdict.Build(verdict.Input{Ledger: s.Ledger, Wall: wall, Explained: explained, Dumped: dumped}), Job: JobOf(s, Options{Log: opt.Log})}, nil
}

// folderDump explains a run folder's dump against its log, as explain RUN does: the verdict names
// the causes the dump shows (no advice to dump what is dumped), and under the default warm-up a
// recompilation the dump shows to be set-up is taken back. It says whether the folder had a dump.
func folderDump(f runfolder.Folder, rep *ledger.Report, opt ledger.ReadOptions) ([]verdict.Explained, bool) {
	if f.Dump == "" || !hasFiles(f.Dump) {
		return nil, false
	}
	d, err := Load(f.Dump, Options{Log: opt.Log})
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
// them (its prefix, or its environment in a run folder's manifest); nil otherwise.
func JobOf(s *ledger.Scan, opt Options) *Ranks {
	if len(s.Ledger.Sequences) < 2 {
		return nil
	}
	for _, sq := range s.Ledger.Sequences {
		if sq.Rank == "" {
			if r, _ := manifestRank(stripRank(sq.File)); r == "" {
				return nil
			}
		}
	}
	return RanksOf(s, RanksOptions{Options: opt})
}

// noteFolder adds what a run folder lacks (runfolder.Folder.Notes: a run cut short) to the warnings
// of its run.log, at its last line.
func noteFolder(in *ledger.Input, f runfolder.Folder) {
	in.Incomplete = f.Incomplete()
	for _, n := range f.Notes() {
		in.Warnings = append(in.Warnings, logscan.Warning{File: in.Path, Line: in.Lines, Message: n})
		in.WarningCount++
	}
}

// folderFacts is what a run folder of recomp run lends a report besides its log: the wall time
// its manifest records (0 when unreadable), and its probe's lines of the program's own code,
// given to the ledger's compilations.
func folderFacts(f runfolder.Folder, rep *ledger.Report, opt ledger.Options) time.Duration {
	var wall time.Duration
	if f.Manifest != "" {
		if m, err := runfolder.ReadManifest(f.Manifest); err == nil {
			wall = time.Duration(m.WallSeconds * float64(time.Second))
		}
	}
	if recs, err := runfolder.ReadProbe(f.Dir); err == nil && len(recs) > 0 {
		attachProbe(rep, recs, opt)
	}
	return wall
}
