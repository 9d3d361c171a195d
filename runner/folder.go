package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/internal/lazyre"
	"github.com/recomp/recomp/internal/openfile"
	"github.com/recomp/recomp/runfolder"
)

var reUnsafeName = lazyre.New(`[^A-Za-z0-9_.-]+`)

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
	for _, name := range []string{runfolder.LogName, runfolder.DumpName, runfolder.ProbeDir, runfolder.ProbeName, runfolder.ManifestName} {
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

// CacheWatch takes the snapshot of a cache folder the run may write: the names in it before
// the run, and what the run added.
type CacheWatch struct {
	runfolder.CacheSnapshot

	names map[string]bool
	// stack is the stack whose default folder this is (no variable named it): the manifest
	// names it only for a run that used the stack.
	stack string
}

// CacheFolders finds the cache folders a run will use, from its environment and the folders
// the user named.
func CacheFolders(env []string, named []string) []*CacheWatch {
	var out []*CacheWatch
	seen := map[string]bool{}
	add := func(dir, from string) {
		if dir == "" || seen[dir] {
			return
		}
		seen[dir] = true
		out = append(out, &CacheWatch{CacheSnapshot: runfolder.CacheSnapshot{Dir: dir, From: from}})
	}
	for _, c := range frameworks.CacheFolders(env) {
		add(c.Dir, c.From)
	}
	for _, d := range named {
		add(d, "--cache")
	}
	for _, c := range frameworks.DefaultCacheFolders(env) {
		if !seen[c.Dir] {
			add(c.Dir, c.From)
			out[len(out)-1].stack = c.Stack
		}
	}
	return out
}

// usedStack says whether a run used a stack, by the versions its manifest found.
func usedStack(stack string, versions map[string]string) bool {
	for _, p := range frameworks.StackPackages(stack) {
		if versions[p] != "" {
			return true
		}
	}
	return false
}

// TakeBefore takes the names in the folder before the run.
func (c *CacheWatch) TakeBefore() {
	c.names = map[string]bool{}
	c.Before = listNames(c.Dir, func(n string) { c.names[n] = true })
}

// TakeAfter counts the folder again and lists what the run added.
func (c *CacheWatch) TakeAfter() {
	c.After = listNames(c.Dir, func(n string) {
		if !c.names[n] {
			c.AddedCount++
			if len(c.Added) < runfolder.MaxListed {
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
// the interpreter of a script's #! line, and only when that is a real interpreter (an executable
// binary, not a script: a shell script named python3 is the user's own code, never run again
// to ask it anything). "" when it does not show.
func PythonOf(command []string) string {
	if strings.HasPrefix(filepath.Base(command[0]), "python") {
		return realPython(command[0])
	}
	fields := shebang(command[0])
	if len(fields) == 0 {
		return ""
	}
	if filepath.Base(fields[0]) == "env" && len(fields) > 1 {
		return realPython(fields[1])
	}
	return realPython(fields[0])
}

// realPython is the path of the Python interpreter name leads to (looked up on PATH): "" unless
// its name starts with python and the file, after symbolic links, is an executable binary
// (ELF, Mach-O). A pyenv shim or any other script is not run: the probe tells the versions.
func realPython(name string) string {
	if !strings.HasPrefix(filepath.Base(name), "python") {
		return ""
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil || !strings.HasPrefix(filepath.Base(real), "python") {
		return ""
	}
	f, _, err := openfile.Open(real, false)
	if err != nil {
		return ""
	}
	defer f.Close()
	var magic [4]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil {
		return ""
	}
	switch string(magic[:]) {
	case "\x7fELF", "\xfe\xed\xfa\xce", "\xfe\xed\xfa\xcf", "\xce\xfa\xed\xfe", "\xcf\xfa\xed\xfe", "\xca\xfe\xba\xbe":
		return path
	}
	return ""
}

// versionScript prints the versions of the packages the interpreter has (a JSON list of names
// is its argument). Python runs it with -S: no site, so no sitecustomize or usercustomize (the
// user's code) runs; the script then adds the site-packages folders as site would (a virtual
// environment's, the user's), without running either.
const versionScript = `import json, sys, site
try:
    known = site.removeduppaths()
    known = site.venv(known)
    if site.check_enableusersite():
        known = site.addusersitepackages(known)
    site.addsitepackages(known)
except Exception:
    pass
import importlib.metadata as m
out = {}
for p in json.loads(sys.argv[1]):
    try:
        out[p] = m.version(p)
    except Exception:
        pass
print(json.dumps(out))`

// versionsTimeout bounds the version query.
const versionsTimeout = 10 * time.Second

// Versions asks a Python interpreter (with the run's environment) which framework versions it
// has, in isolation (-S: nothing of the user's runs) and within versionsTimeout; nil when it
// cannot say. The probe's own answer (ProbeVersions) comes first: this is for runs without it.
func Versions(python string, env []string) map[string]string {
	if python == "" {
		return nil
	}
	names, _ := json.Marshal(frameworks.Packages())
	ctx, cancel := context.WithTimeout(context.Background(), versionsTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-S", "-c", versionScript, string(names))
	cmd.Env = env
	cmd.WaitDelay = time.Second
	cmd.SysProcAttr = childAttr(false)
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

// PruneDump keeps the modules dumped before optimisation (*.before_optimizations.txt) and
// removes everything else XLA wrote into the run folder's own dump folder, and into the
// folders of its processes (runfolder.ProcessFolder: pid-N). A folder left empty is removed:
// the probe makes the dump folder as a process starts (the first to make it dumps into it),
// and a run that dumped nothing (torch.compile's, TF's without XLA) has none, as before.
func PruneDump(dump string) (removed int, err error) {
	folders, err := runfolder.DumpFolders(dump)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return 0, nil
		}
		return 0, err
	}
	for _, f := range folders {
		if f.Err != nil {
			return removed, f.Err
		}
		for _, e := range f.Entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".before_optimizations.txt") {
				if err := os.RemoveAll(filepath.Join(f.Path, e.Name())); err != nil {
					return removed, err
				}
				removed++
			}
		}
	}
	dropEmpty(folders)
	return removed, nil
}

// DropEmptyDump removes the run folder's own dump folder, and the folders of its processes,
// where nothing was dumped into them (--dump all, which prunes nothing: PruneDump does it
// otherwise).
func DropEmptyDump(dump string) {
	if folders, err := runfolder.DumpFolders(dump); err == nil {
		dropEmpty(folders)
	}
}

// dropEmpty removes the folders of a dump's processes, then the dump's own, that are empty (a
// process writing into one now keeps it).
func dropEmpty(folders []runfolder.DumpFolder) {
	for i := len(folders) - 1; i >= 0; i-- {
		os.Remove(folders[i].Path) // only when empty
	}
}

// Capture runs a command as Run does, writing what it prints to the run folder's run.log (each
// line stamped with the time it arrived) as it arrives; opt.Log is set by Capture. The error is
// for a command that could not start (or a run.log that could not be made); a run.log that could
// not be written to the end (a full disk) is the Result's LogError, and what was written stays.
func Capture(dir string, opt Options) (*Result, error) {
	logf, err := os.Create(filepath.Join(dir, runfolder.LogName))
	if err != nil {
		return nil, err
	}
	opt.Log = logf
	if testLogWriter != nil {
		opt.Log = testLogWriter(logf)
	}
	res, err := Run(opt)
	cerr := logf.Close()
	if err != nil {
		return nil, err
	}
	if cerr != nil && res.LogError == "" {
		res.LogError = cerr.Error()
	}
	return res, nil
}

// testLogWriter, set by tests, wraps run.log's writer (to inject a failed write).
var testLogWriter func(io.Writer) io.Writer

// RunInfo is what a run's manifest says besides the command's result.
type RunInfo struct {
	Command   []string
	Recomp    string // recomp's version
	Framework runfolder.Framework
	Dump      runfolder.DumpMode
	Settings  []Setting
	Env       []string // the command's environment (for the Python packages' versions)
	Caches    []*CacheWatch
	Grace     time.Duration
	// Versions are the framework versions the probe found (nil: ask the command's Python).
	Versions map[string]string
	// Compiled says, for each stack whose probe records each compilation
	// (framework.Probe.Compiles), whether the probe recorded one; nil when the probe did not run.
	Compiled map[string]bool
}

// NewManifest is the manifest of a run that ended with res; it takes the caches' snapshots
// after the run.
func NewManifest(info RunInfo, res *Result) *runfolder.Manifest {
	wd, _ := os.Getwd()
	host, _ := os.Hostname()
	m := &runfolder.Manifest{Version: 1, Recomp: info.Recomp, Command: info.Command, WorkDir: wd, Host: host,
		Framework: info.Framework, Dump: info.Dump, Settings: settingsOf(info.Settings),
		Start: res.Start.UTC(), End: res.End.UTC(), WallSeconds: res.End.Sub(res.Start).Seconds(), ExitCode: res.ExitCode,
		Signal: res.Signal, Forwarded: res.Forwarded, OutputLines: res.Lines, OutputBytes: res.Bytes,
		Versions: info.Versions, Caches: []runfolder.CacheSnapshot{}, FirstStepSeconds: -1,
		HeldOpen: res.HeldOpen, LogError: res.LogError, LogLostBytes: res.LogLost, Stopped: res.Stopped, StoppedLine: res.StoppedLine, Launcher: runfolder.LauncherEnv(info.Env)}
	if m.Forwarded == nil {
		m.Forwarded = []string{}
	}
	if res.HeldOpen {
		m.GraceSeconds = info.Grace.Seconds()
	}
	if m.Versions == nil {
		m.Versions = Versions(PythonOf(info.Command), info.Env)
	}
	if m.Versions == nil {
		m.Versions = map[string]string{}
	}
	for _, cs := range info.Caches {
		if compiled, told := info.Compiled[cs.stack]; cs.stack != "" && (!usedStack(cs.stack, m.Versions) || !isDir(cs.Dir) || told && !compiled) {
			// a stack's default folder, and the run did not use the stack, the stack made none,
			// or the probe saw it compile nothing (PyTorch/XLA imports torch, and runs no Inductor)
			continue
		}
		cs.TakeAfter()
		m.Caches = append(m.Caches, cs.CacheSnapshot)
	}
	return m
}
