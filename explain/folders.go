package explain

import (
	"os"
	"path/filepath"

	"github.com/recomp/recomp/internal/input"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/runfolder"
)

// runs are the run folders one command reads, each looked at once: the folder and its manifest
// (runfolder.OpenManifest), and the probe's records when first needed, by the folder's path and
// by its run.log's. A nil runs reads nothing ahead and keeps nothing.
type runs struct {
	byDir, byLog map[string]*run
}

// run is one run folder read (ok false: the path is none).
type run struct {
	f      runfolder.Folder
	c      runfolder.Contents
	ok     bool
	probed bool // c.Probe was read (or given)
}

func newRuns() *runs { return &runs{byDir: map[string]*run{}, byLog: map[string]*run{}} }

// folder is the run folder at dir (nil when dir is none), looked at once.
func (rs *runs) folder(dir string) *run {
	if r, ok := rs.byDir[dir]; ok {
		return r.orNil()
	}
	f, c, ok := runfolder.OpenManifest(dir)
	return rs.keep(dir, &run{f: f, c: c, ok: ok})
}

// read is the run folder at dir with its probe's records (runfolder.Read), looked at once.
func (rs *runs) read(dir string) *run {
	if r, ok := rs.byDir[dir]; ok {
		if r.ok {
			r.probe()
		}
		return r.orNil()
	}
	f, c, ok := runfolder.Read(dir)
	return rs.keep(dir, &run{f: f, c: c, ok: ok, probed: ok})
}

func (rs *runs) keep(dir string, r *run) *run {
	rs.byDir[dir] = r
	if r.ok {
		rs.byLog[r.f.Log] = r
	}
	return r.orNil()
}

// of is the run folder of a log path (runfolder.Of: the folder of a run.log), nil when it is in
// none.
func (rs *runs) of(logPath string) *run {
	if filepath.Base(logPath) != runfolder.LogName {
		return nil
	}
	if r, ok := rs.byLog[logPath]; ok {
		return r
	}
	r := rs.folder(filepath.Dir(logPath))
	if r != nil && r.f.Log != logPath {
		rs.byLog[logPath] = r
	}
	return r
}

func (r *run) orNil() *run {
	if r == nil || !r.ok {
		return nil
	}
	return r
}

// probe is the probe's records of the folder, read once.
func (r *run) probe() ([]runfolder.ProbeRecord, error) {
	if !r.probed {
		r.c.Probe, r.c.ProbeLeftOut, r.c.ProbeErr = runfolder.ReadProbeCounted(r.f.Dir)
		r.probed = true
	}
	return r.c.Probe, r.c.ProbeErr
}

// logs are the ledger's logs for paths: a run folder's run.log where a path is a run folder
// (looked at once: ledger then opens the log, not the folder again), and each run.log of a run
// recomp stopped read up to the stop (StoppedLine), whether the folder or its run.log was named.
func (rs *runs) logs(paths []string) []ledger.Log {
	logs := ledger.Files(paths)
	for i, p := range paths {
		if p == input.Stdin {
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		var r *run
		if st.IsDir() {
			if r = rs.folder(p); r != nil {
				logs[i].Path, logs[i].Traces = r.f.Log, ledger.TraceFiles(r.f.Trace, r.f.TraceSince)
			}
		} else {
			r = rs.of(p) // the folder of a run.log
		}
		if r != nil {
			logs[i].Until = StoppedLine(r.c.Manifest)
		}
	}
	return logs
}

// LogsOf are the logs to read for paths (a run folder stands for its run.log), each run.log of a
// run recomp stopped up to the line where it decided to stop the command: what the command
// printed after it (a KeyboardInterrupt's traceback through the stack's compile functions) is its
// answer to the stop, no evidence.
func LogsOf(paths []string) []ledger.Log { return newRuns().logs(paths) }

// StoppedLine is the last line of a run's run.log that is evidence: where recomp decided to stop
// the command; 0 (all) for a run not stopped.
func StoppedLine(m *runfolder.Manifest) int64 {
	if m == nil || m.Stopped == "" {
		return 0
	}
	return m.StoppedLine
}

// ReadScan is Logs of what a command line names: a folder of run folders stands for its run
// folders (as ExpandRuns expands it), and each run folder is looked at once.
func ReadScan(paths []string, opt ledger.ReadOptions) (*Scan, error) {
	rs := newRuns()
	var expanded []string
	for _, p := range paths {
		if p == input.Stdin || rs.folder(p) != nil {
			expanded = append(expanded, p)
			continue
		}
		var dirs []string
		if entries, err := os.ReadDir(p); err == nil {
			for _, e := range entries {
				if e.IsDir() && rs.folder(filepath.Join(p, e.Name())) != nil {
					dirs = append(dirs, filepath.Join(p, e.Name()))
				}
			}
		}
		if len(dirs) == 0 {
			expanded = append(expanded, p)
			continue
		}
		sortNatural(dirs)
		expanded = append(expanded, dirs...)
	}
	return logsOf(expanded, opt, rs)
}

// userName is the name the user gave a process's log (runfolder.UserName): its run folder for a
// run.log, else the log's path.
func (rs *runs) userName(logPath string) string {
	if rs.of(logPath) != nil {
		return filepath.Dir(logPath) // as runfolder.Of names it, however the folder was named
	}
	return logPath
}
