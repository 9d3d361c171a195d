// Package runfolder is the format of a run folder, what recomp run leaves behind and every
// command accepts wherever a log or a dump is: the names of its files (run.log with the time
// each line arrived, the HLO dump, manifest.json, the probe's records), the manifest, the
// probe's records, and finding those files again in a folder. runner writes run folders;
// internal/input, explain and report read them through this package.
package runfolder

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/recomp/recomp/internal/lazyre"
)

// The files of a run folder.
const (
	LogName      = "run.log"
	DumpName     = "dump"
	TraceName    = "trace" // a stack's trace files (framework.Framework.TraceVariable)
	ManifestName = "manifest.json"
	ProbeName    = "probe.jsonl"      // what the probe wrote
	ProbeDir     = ".recomp-probe"    // the probe's sitecustomize.py, removed after the run
	ProbeOutVar  = "RECOMP_PROBE_OUT" // where the probe writes
	// ProbeLogVar names the file the probe appends the stacks' log records to, stamped as
	// run.log's lines are, when the program runs in a process recomp did not start (the pytest
	// plugin's run folder: its run.log); unset, it writes them to the standard error the
	// process started with.
	ProbeLogVar = "RECOMP_PROBE_LOG"
	// ProbeOwnVar names the settings recomp set (not the user's) that the probe narrows at run
	// time (framework.Setting.Narrowed), comma-separated.
	ProbeOwnVar = "RECOMP_PROBE_OWN"
)

// Folder is the files of a run folder.
type Folder struct {
	Dir, Log, Dump, Manifest string
	// Trace is the folder of the stacks' trace files: the folder's trace/, else the user's own
	// trace folder its manifest names (TraceDir), whose files written since TraceSince are the
	// run's (TraceSince is zero for the run's own folder). "" when there is none.
	Trace      string
	TraceSince time.Time
}

// manifestNotes says what a run folder read back lacks, one sentence each, from its manifest
// read (m) or not (err): a run cut short (its manifest.json is the one recomp run writes when
// the command starts: recomp was stopped, killed, before the run ended), a manifest that cannot
// be read, a run.log that could not be written to the end; incomplete is the first, the reason
// run.log does not hold the whole run, when one says so ("" otherwise). A gate cannot pass on
// what such a log leaves out.
func manifestNotes(m *Manifest, err error) (out []string, incomplete string) {
	const held = "run.log holds what the command printed until then"
	if err != nil {
		return []string{"the run's manifest could not be read: " + err.Error()}, ""
	}
	if m.Running {
		out = append(out, "the run was cut: manifest.json is the one written when the command started, so recomp was stopped (killed?) before the run ended; "+held)
	}
	if m.LogError != "" {
		out = append(out, fmt.Sprintf("run.log is incomplete: writing it failed (%s) and %d bytes were not written; what it holds was written before", m.LogError, m.LogLostBytes))
	}
	if len(out) > 0 {
		incomplete = out[0]
	}
	return out, incomplete
}

// Contents is what a run folder holds besides its log and its dump, read once (Read): its
// manifest and the probe's records, each with the error reading it gave. A folder without a
// manifest has Manifest and ManifestErr nil; without records, Probe is nil.
type Contents struct {
	Manifest    *Manifest
	ManifestErr error
	Probe       []ProbeRecord
	ProbeErr    error
	// ProbeLeftOut counts the probe's records past those ReadProbeCounted keeps: not read.
	ProbeLeftOut int
}

// ProbeCapped says what the probe's records a cap left unread ("" when none): the sentence a
// report and a gate give, naming the cap.
func (c Contents) ProbeCapped() string {
	if c.ProbeLeftOut == 0 {
		return ""
	}
	return fmt.Sprintf("%s: more than %d records (recomp keeps at most %d, a call repeated in a row as one): %d record(s) were not read",
		ProbeName, maxProbeRecords, maxProbeRecords, c.ProbeLeftOut)
}

// Notes says what the run folder lacks (manifestNotes); a folder without a manifest says
// nothing: a run.log of one's own making is a run folder too.
func (c Contents) Notes() []string {
	notes, _ := c.notes()
	return notes
}

// Incomplete says why run.log does not hold the whole run ("" when nothing says so): the run
// was cut, or writing run.log failed.
func (c Contents) Incomplete() string {
	_, cut := c.notes()
	return cut
}

func (c Contents) notes() ([]string, string) {
	if c.Manifest == nil && c.ManifestErr == nil {
		return nil, ""
	}
	return manifestNotes(c.Manifest, c.ManifestErr)
}

// Open says whether path is a run folder (a folder with a run.log) and names its files;
// Dump and Manifest are "" when the folder has none. Dump is the folder's dump/, else the user's
// own dump folder its manifest names (DumpDir).
func Open(path string) (Folder, bool) {
	f, _, ok := open(path, false)
	return f, ok
}

// Read is Open that also reads, once, what the folder holds (Contents): the one reader of a run
// folder for a command that uses its manifest and its probe's records.
func Read(path string) (Folder, Contents, bool) {
	f, c, ok := open(path, true)
	if ok {
		c.Probe, c.ProbeLeftOut, c.ProbeErr = ReadProbeCounted(f.Dir)
	}
	return f, c, ok
}

// OpenManifest is Open that also reads the folder's manifest when it has one (Contents without
// the probe's records: ReadProbeCounted reads them when they are needed).
func OpenManifest(path string) (Folder, Contents, bool) {
	return open(path, true)
}

// open is Open; with manifest, it reads the manifest whenever there is one, else only when the
// folder has no dump/ of its own.
func open(path string, manifest bool) (Folder, Contents, bool) {
	looks.folders.Add(1)
	var c Contents
	st, err := os.Stat(filepath.Join(path, LogName))
	if err != nil || !st.Mode().IsRegular() {
		return Folder{}, c, false
	}
	f := Folder{Dir: path, Log: filepath.Join(path, LogName)}
	if st, err := os.Stat(filepath.Join(path, DumpName)); err == nil && st.IsDir() {
		f.Dump = filepath.Join(path, DumpName)
	}
	if st, err := os.Stat(filepath.Join(path, TraceName)); err == nil && st.IsDir() {
		f.Trace = filepath.Join(path, TraceName)
	}
	if _, err := os.Lstat(filepath.Join(path, ManifestName)); err == nil {
		f.Manifest = filepath.Join(path, ManifestName)
		if f.Dump == "" || manifest {
			c.Manifest, c.ManifestErr = ReadManifest(f.Manifest)
		}
		if m := c.Manifest; f.Dump == "" && m != nil && m.DumpDir != "" {
			// A run that dumped into the user's own folder names it in its manifest.
			if st, err := os.Stat(m.DumpDir); err == nil && st.IsDir() {
				f.Dump = m.DumpDir
			}
		}
		if m := c.Manifest; f.Trace == "" && m != nil && m.TraceDir != "" {
			// A run that traced into the user's own folder names it in its manifest.
			if st, err := os.Stat(m.TraceDir); err == nil && st.IsDir() {
				f.Trace, f.TraceSince = m.TraceDir, m.Start
			}
		}
	}
	return f, c, true
}

// MaxLogLine bounds the part of a line run.log holds in one piece: a longer line is written
// in pieces.
const MaxLogLine = 1 << 20

var reStep = lazyre.New(`(?i)\b(step|epoch|iter(ation)?)\b\s*[:=#]?\s*\d+`)

// FirstStep returns the arrival time of the first line of a run.log at or after after that
// names a step or an epoch ("Epoch 1/3", "step 0 loss 0.9"), or the zero time.
func FirstStep(logPath string, after time.Time) time.Time {
	f, err := os.Open(logPath)
	if err != nil {
		return time.Time{}
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), MaxLogLine+64)
	for sc.Scan() {
		stamp, line, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, stamp)
		if err != nil || t.Before(after) {
			continue
		}
		if reStep.MatchString(line) {
			return t
		}
	}
	return time.Time{}
}

// Runs lists the run folders directly inside path when path is a folder of run folders (one
// per process of a job: r0/, r1/, …) and not a run folder itself; nil otherwise. The order is
// the folder's (by name).
func Runs(path string) []Folder {
	if _, ok := Open(path); ok {
		return nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil
	}
	var out []Folder
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if f, ok := Open(filepath.Join(path, e.Name())); ok {
			out = append(out, f)
		}
	}
	return out
}

// Of is the run folder a log path belongs to: the folder of a run.log that Open accepts.
func Of(logPath string) (Folder, bool) {
	if filepath.Base(logPath) != LogName {
		return Folder{}, false
	}
	return Open(filepath.Dir(logPath))
}

// UserName is the name the user gave a process's log: its run folder for a run.log, else the
// log's path.
func UserName(logPath string) string {
	if f, ok := Of(logPath); ok {
		return f.Dir
	}
	return logPath
}

// reProcessFolder is the name of the folder a process dumps into when another process of the
// run dumps into the run folder's own (recomp's probe: pid-<process id>).
var reProcessFolder = lazyre.New(`^pid-([1-9][0-9]{0,9})$`)

// ProcessFolder says whether name is that of a process's own folder in a dump (pid-N), and
// the process id it names.
func ProcessFolder(name string) (pid int, ok bool) {
	m := reProcessFolder.FindStringSubmatch(name)
	if m == nil {
		return 0, false
	}
	pid, err := strconv.Atoi(m[1])
	return pid, err == nil && pid > 0
}

// DumpFolder is a folder of a dump that modules were dumped into: the dump's own (PID 0) or
// the folder of one of its processes (pid-N, PID N). Entries are its entries, those of the
// dump's own without the folders of its processes; Err is why a process's folder could not be
// read (its Entries are then empty).
type DumpFolder struct {
	Path    string
	PID     int
	Entries []os.DirEntry
	Err     error
}

// DumpFolders reads a dump folder and the folders of its processes (ProcessFolder): the dump's
// own first, then each process's in name order. The error is the dump's own folder's.
func DumpFolders(dump string) ([]DumpFolder, error) {
	entries, err := os.ReadDir(dump)
	if err != nil {
		return nil, err
	}
	out := []DumpFolder{{Path: dump}}
	for _, e := range entries {
		pid, ok := ProcessFolder(e.Name())
		if !ok || !e.IsDir() {
			out[0].Entries = append(out[0].Entries, e)
			continue
		}
		sub := DumpFolder{Path: filepath.Join(dump, e.Name()), PID: pid}
		sub.Entries, sub.Err = os.ReadDir(sub.Path)
		out = append(out, sub)
	}
	return out, nil
}
