package runner

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/internal/atomicfile"
)

// The files of a run folder.
const (
	LogName      = "run.log"
	DumpName     = "dump"
	ManifestName = "manifest.json"
)

// Folder is the files of a run folder.
type Folder struct {
	Dir, Log, Dump, Manifest string
}

// OpenFolder says whether path is a run folder (a folder with a run.log) and names its files;
// Dump and Manifest are "" when the folder has none.
func OpenFolder(path string) (Folder, bool) {
	st, err := os.Stat(filepath.Join(path, LogName))
	if err != nil || !st.Mode().IsRegular() {
		return Folder{}, false
	}
	f := Folder{Dir: path, Log: filepath.Join(path, LogName)}
	if st, err := os.Stat(filepath.Join(path, DumpName)); err == nil && st.IsDir() {
		f.Dump = filepath.Join(path, DumpName)
	}
	if _, err := os.Stat(filepath.Join(path, ManifestName)); err == nil {
		f.Manifest = filepath.Join(path, ManifestName)
	}
	return f, true
}

var reUnsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// NewFolder creates the folder of a new run and returns it: out when given (it must not exist,
// or be an empty folder), else parent/<time>-<name>, with -2, -3, … added rather than reuse
// a folder. Nothing is ever overwritten.
func NewFolder(out, parent, name string, now time.Time) (string, error) {
	if out != "" {
		if entries, err := os.ReadDir(out); err == nil && len(entries) > 0 {
			return "", fmt.Errorf("%s: the run folder exists and is not empty: recomp run never writes over a folder", out)
		}
		return out, os.MkdirAll(out, 0o755)
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	name = strings.Trim(reUnsafeName.ReplaceAllString(name, "_"), "_.")
	if name == "" {
		name = "run"
	}
	base := filepath.Join(parent, now.Format("20060102-150405")+"-"+name)
	for i := 1; ; i++ {
		dir := base
		if i > 1 {
			dir = fmt.Sprintf("%s-%d", base, i)
		}
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, os.ErrExist) || i > 1000 {
			return "", err
		}
	}
}

// DiscardFolder removes what recomp made of a run that could not start: its run.log and dump/,
// and the folder itself unless keepDir (it was an empty folder the user named).
func DiscardFolder(dir string, keepDir bool) error {
	for _, name := range []string{LogName, DumpName, probeDir, ProbeName} {
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	if keepDir {
		return nil
	}
	return os.Remove(dir)
}

// Name is what a command's run folder is named after: its script (train.py → train), else
// the program.
func Name(command []string) string {
	for _, a := range command[1:] {
		if strings.HasSuffix(a, ".py") || strings.HasSuffix(a, ".sh") {
			return strings.TrimSuffix(filepath.Base(a), filepath.Ext(a))
		}
	}
	return filepath.Base(command[0])
}

// Manifest is a run folder's manifest.json: what ran, how, and what it left.
type Manifest struct {
	Version     int       `json:"version"`
	Recomp      string    `json:"recomp"`
	Command     []string  `json:"command"`
	WorkDir     string    `json:"work_dir"`
	Host        string    `json:"host"`
	Framework   Framework `json:"framework"`
	Dump        DumpMode  `json:"dump"`
	Settings    []Setting `json:"settings"`
	Start       time.Time `json:"start"`
	End         time.Time `json:"end"`
	WallSeconds float64   `json:"wall_seconds"`
	ExitCode    int       `json:"exit_code"`
	Signal      string    `json:"signal,omitempty"`
	Forwarded   []string  `json:"forwarded_signals"`
	// HeldOpen says a process the command started kept its output open after the command
	// exited; recomp stopped reading GraceSeconds later.
	HeldOpen bool `json:"held_open,omitempty"`
	// Stopped says why recomp stopped the command (--fail-on-recompile, --compile-budget).
	Stopped      string            `json:"stopped,omitempty"`
	GraceSeconds float64           `json:"grace_seconds,omitempty"`
	OutputLines  int64             `json:"output_lines"`
	OutputBytes  int64             `json:"output_bytes"`
	Versions     map[string]string `json:"versions"`
	Caches       []CacheSnapshot   `json:"caches"`
	// FirstStepSeconds is the time from the start to the first line after the first
	// compilation that names a step or an epoch (-1 when none does).
	FirstStepSeconds float64 `json:"first_step_seconds"`
}

// WriteManifest writes m into the folder, atomically (a failed write leaves no truncated file).
func WriteManifest(dir string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, ManifestName), append(b, '\n'), 0o644)
}

// ReadManifest reads a folder's manifest.json.
func ReadManifest(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &m, nil
}

// CacheSnapshot is what an executable or persistent-cache folder held before and after the
// run: counts and names, never contents.
type CacheSnapshot struct {
	Dir        string   `json:"dir"`
	From       string   `json:"from"` // what names the folder (a variable, --cache)
	Before     int      `json:"before"`
	After      int      `json:"after"`
	Added      []string `json:"added"` // the first maxListed names the run added
	AddedCount int      `json:"added_count"`

	names map[string]bool
}

const maxListed = 1000

// CacheFolders finds the cache folders a run will use, from its environment and the folders
// the user named.
func CacheFolders(env []string, named []string) []*CacheSnapshot {
	var out []*CacheSnapshot
	seen := map[string]bool{}
	add := func(dir, from string) {
		if dir == "" || seen[dir] {
			return
		}
		seen[dir] = true
		out = append(out, &CacheSnapshot{Dir: dir, From: from})
	}
	for _, c := range frameworks.CacheFolders(env) {
		add(c.Dir, c.From)
	}
	for _, d := range named {
		add(d, "--cache")
	}
	return out
}

// TakeBefore takes the names in the folder before the run.
func (c *CacheSnapshot) TakeBefore() {
	c.names = map[string]bool{}
	c.Before = listNames(c.Dir, func(n string) { c.names[n] = true })
}

// TakeAfter counts the folder again and lists what the run added.
func (c *CacheSnapshot) TakeAfter() {
	c.After = listNames(c.Dir, func(n string) {
		if !c.names[n] {
			c.AddedCount++
			if len(c.Added) < maxListed {
				c.Added = append(c.Added, n)
			}
		}
	})
	sort.Strings(c.Added)
	c.Added = append([]string{}, c.Added...)
}

// listNames calls f for every entry of dir (none when it does not exist) and counts them.
func listNames(dir string, f func(string)) int {
	d, err := os.Open(dir)
	if err != nil {
		return 0
	}
	defer d.Close()
	n := 0
	for {
		names, err := d.Readdirnames(1024)
		for _, name := range names {
			f(name)
			n++
		}
		if err != nil {
			return n
		}
	}
}

// PythonOf is the Python interpreter a command runs with, when it shows: python… itself, or
// the interpreter in a script's #! line. "" when it does not.
func PythonOf(command []string) string {
	base := filepath.Base(command[0])
	if strings.HasPrefix(base, "python") {
		return command[0]
	}
	f, err := os.Open(command[0])
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(io.LimitReader(f, 512)).ReadString('\n')
	fields := strings.Fields(strings.TrimPrefix(line, "#!"))
	if !strings.HasPrefix(line, "#!") || len(fields) == 0 {
		return ""
	}
	if filepath.Base(fields[0]) == "env" && len(fields) > 1 {
		return fields[1]
	}
	if strings.HasPrefix(filepath.Base(fields[0]), "python") {
		return fields[0]
	}
	return ""
}

// versionScript prints the versions of the packages the interpreter has (a JSON list of names
// is its argument).
const versionScript = `import json, sys, importlib.metadata as m
out = {}
for p in json.loads(sys.argv[1]):
    try:
        out[p] = m.version(p)
    except Exception:
        pass
print(json.dumps(out))`

// Versions asks a Python interpreter (with the run's environment) which framework versions it
// has; nil when it cannot say.
func Versions(python string, env []string) map[string]string {
	if python == "" {
		return nil
	}
	names, _ := json.Marshal(frameworks.Packages())
	cmd := exec.Command(python, "-c", versionScript, string(names))
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	var v map[string]string
	if json.Unmarshal(out, &v) != nil {
		return nil
	}
	return v
}

var reStep = regexp.MustCompile(`(?i)\b(step|epoch|iter(ation)?)\b\s*[:=#]?\s*\d+`)

// FirstStep returns the arrival time of the first line of a run.log at or after after that
// names a step or an epoch ("Epoch 1/3", "step 0 loss 0.9"), or the zero time.
func FirstStep(logPath string, after time.Time) time.Time {
	f, err := os.Open(logPath)
	if err != nil {
		return time.Time{}
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxLine+64)
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

// PruneDump keeps the modules dumped before optimisation (*.before_optimizations.txt) and
// removes everything else XLA wrote into the run folder's own dump folder.
func PruneDump(dump string) (removed int, err error) {
	entries, err := os.ReadDir(dump)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return 0, nil
		}
		return 0, err
	}
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".before_optimizations.txt") {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dump, e.Name())); err != nil {
			return removed, err
		}
		removed++
	}
	return removed, nil
}

// Capture runs a command as Run does, writing what it prints to the run folder's run.log (each
// line stamped with the time it arrived); opt.Log is set by Capture.
func Capture(dir string, opt Options) (*Result, error) {
	logf, err := os.Create(filepath.Join(dir, LogName))
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(logf, 256<<10)
	opt.Log = bw
	res, err := Run(opt)
	if ferr := bw.Flush(); err == nil && ferr != nil {
		err = ferr
	}
	if cerr := logf.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return res, err
}

// RunInfo is what a run's manifest says besides the command's result.
type RunInfo struct {
	Command   []string
	Recomp    string // recomp's version
	Framework Framework
	Dump      DumpMode
	Settings  []Setting
	Env       []string // the command's environment (for the Python packages' versions)
	Caches    []*CacheSnapshot
	Grace     time.Duration
}

// NewManifest is the manifest of a run that ended with res; it takes the caches' snapshots
// after the run.
func NewManifest(info RunInfo, res *Result) *Manifest {
	wd, _ := os.Getwd()
	host, _ := os.Hostname()
	m := &Manifest{Version: 1, Recomp: info.Recomp, Command: info.Command, WorkDir: wd, Host: host,
		Framework: info.Framework, Dump: info.Dump, Settings: info.Settings,
		Start: res.Start.UTC(), End: res.End.UTC(), WallSeconds: res.End.Sub(res.Start).Seconds(), ExitCode: res.ExitCode,
		Signal: res.Signal, Forwarded: res.Forwarded, OutputLines: res.Lines, OutputBytes: res.Bytes,
		Versions: Versions(PythonOf(info.Command), info.Env), Caches: []CacheSnapshot{}, FirstStepSeconds: -1,
		HeldOpen: res.HeldOpen, Stopped: res.Stopped}
	if m.Forwarded == nil {
		m.Forwarded = []string{}
	}
	if res.HeldOpen {
		m.GraceSeconds = info.Grace.Seconds()
	}
	for _, cs := range info.Caches {
		cs.TakeAfter()
		m.Caches = append(m.Caches, *cs)
	}
	if m.Versions == nil {
		m.Versions = map[string]string{}
	}
	return m
}
