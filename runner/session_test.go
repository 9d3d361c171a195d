package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/internal/livetest"
	"github.com/recomp/recomp/runfolder"
)

// A session makes the run folder, runs the command with recomp's settings into run.log,
// removes the probe, and says what ran in the manifest; a command that cannot start leaves no
// run, and an empty folder the user named stays.
func TestSession(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r1")
	s, err := Prepare(SessionOptions{Out: out, Command: []string{"sh", "-c", `echo "jax $JAX_LOG_COMPILES"`}, Framework: "auto",
		Dump: runfolder.DumpBefore, Probe: true, Environ: []string{"PATH=" + os.Getenv("PATH"), "RANK=3", "WORLD_SIZE=4"}, Start: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if s.Dir != out || len(s.Settings) == 0 {
		t.Fatalf("session %+v", s)
	}
	var stdout livetest.Buffer
	res, err := s.Run(Options{Stdout: &stdout, Stderr: &stdout})
	if err != nil || res.ExitCode != 0 {
		t.Fatal(err, res)
	}
	m := s.Manifest(res, "recomp (test)", time.Second)
	logText, _ := os.ReadFile(filepath.Join(out, runfolder.LogName))
	if !strings.Contains(string(logText), "jax 1") || stdout.String() != "jax 1\n" {
		t.Errorf("run.log %q, output %q", logText, stdout.String())
	}
	if _, err := os.Stat(filepath.Join(out, runfolder.ProbeDir)); !os.IsNotExist(err) {
		t.Errorf("the probe is left in the folder: %v", err)
	}
	if m.Recomp != "recomp (test)" || m.Command[0] != "sh" || m.ExitCode != 0 || len(m.Settings) != len(s.Settings) {
		t.Errorf("manifest %+v", m)
	}
	if r, from := m.Rank(); r != "3" || from != "RANK" || m.Launcher["WORLD_SIZE"] != "4" || len(m.Launcher) != 2 {
		t.Errorf("manifest: launcher %v, rank %q from %q", m.Launcher, r, from)
	}

	script := filepath.Join(t.TempDir(), "bad.sh")
	os.WriteFile(script, []byte("#!/no/such/interpreter\n"), 0o755)
	empty := filepath.Join(t.TempDir(), "mine")
	os.Mkdir(empty, 0o755)
	for _, dir := range []string{filepath.Join(t.TempDir(), "r2"), empty} {
		s, err := Prepare(SessionOptions{Out: dir, Command: []string{script}, Dump: runfolder.DumpNone, Probe: true, Start: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(Options{Stdout: &stdout, Stderr: &stdout}); err == nil {
			t.Fatalf("%s ran", script)
		}
		entries, err := os.ReadDir(dir)
		if dir == empty && (err != nil || len(entries) != 0) || dir != empty && !os.IsNotExist(err) {
			t.Errorf("%s after a command that did not start: %v, %v", dir, entries, err)
		}
	}
}

// Inductor's default cache folder (TMPDIR/torchinductor_<user>, the user's name sanitised as
// torch does) is watched when TORCHINDUCTOR_CACHE_DIR is not set, and the manifest names it, with
// what makes it the default and what the run added, only for a run that used torch and left the
// folder; with TORCHINDUCTOR_CACHE_DIR set, that folder alone is watched.
func TestInductorDefaultCacheFolder(t *testing.T) {
	tmp := t.TempDir()
	env := []string{"TMPDIR=" + tmp, "USER=u:v"}
	want := filepath.Join(tmp, "torchinductor_u_v")
	res := &Result{Start: time.Now(), End: time.Now()}
	manifest := func(versions map[string]string, made bool) *runfolder.Manifest {
		cs := CacheFolders(env, nil)
		if len(cs) != 1 || cs[0].Dir != want || cs[0].stack != "torch" {
			t.Fatalf("caches %+v", cs)
		}
		os.RemoveAll(want)
		cs[0].TakeBefore()
		if made {
			if err := os.MkdirAll(filepath.Join(want, "fxgraph"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return NewManifest(RunInfo{Caches: cs, Versions: versions}, res)
	}
	m := manifest(map[string]string{"torch": "2.9.0"}, true)
	if len(m.Caches) != 1 || m.Caches[0].Dir != want || !strings.HasPrefix(m.Caches[0].From, "default") ||
		m.Caches[0].Before != 0 || m.Caches[0].AddedCount != 1 || m.Caches[0].Added[0] != "fxgraph" {
		t.Errorf("a torch run: %+v", m.Caches)
	}
	if m := manifest(map[string]string{"jax": "0.12.0"}, true); len(m.Caches) != 0 {
		t.Errorf("a run without torch: %+v", m.Caches)
	}
	// the probe saw torch.compile compile nothing (PyTorch/XLA imports torch, runs no Inductor)
	cs := CacheFolders(env, nil)
	cs[0].TakeBefore()
	if m := NewManifest(RunInfo{Caches: cs, Versions: map[string]string{"torch": "2.9.0"}, Compiled: map[string]bool{"torch": false}}, res); len(m.Caches) != 0 {
		t.Errorf("no torch.compile compilation: %+v", m.Caches)
	}
	if m := NewManifest(RunInfo{Caches: cs, Versions: map[string]string{"torch": "2.9.0"}, Compiled: map[string]bool{"torch": true}}, res); len(m.Caches) != 1 {
		t.Errorf("torch.compile compiled: %+v", m.Caches)
	}
	if got := compiledStacks([]runfolder.ProbeRecord{{Framework: "torch", Event: "compile"}}); !got["torch"] || got["jax"] {
		t.Errorf("compiled stacks %v", got)
	}
	if got := compiledStacks(nil); got["torch"] {
		t.Errorf("no records: %v", got)
	}
	if m := manifest(map[string]string{"torch": "2.9.0"}, false); len(m.Caches) != 0 {
		t.Errorf("no folder made: %+v", m.Caches)
	}
	if cs := CacheFolders(append(env, "TORCHINDUCTOR_CACHE_DIR=/c"), nil); len(cs) != 1 || cs[0].Dir != "/c" || cs[0].From != "TORCHINDUCTOR_CACHE_DIR" || cs[0].stack != "" {
		t.Errorf("TORCHINDUCTOR_CACHE_DIR set: %+v", cs)
	}
}

// PruneDump keeps the modules before optimisation, in the dump folder and in the folders of its
// processes (pid-N), and removes the rest XLA wrote, other folders included.
func TestPruneDump(t *testing.T) {
	dump := filepath.Join(t.TempDir(), runfolder.DumpName)
	files := []string{
		"module_0000.jit_f.before_optimizations.txt", "module_0000.jit_f.after_optimizations.txt",
		"pid-42/module_0000.jit_f.before_optimizations.txt", "pid-42/module_0000.jit_f.cpu_after_optimizations.txt",
		"pid-42/pid-43/module_0000.jit_f.before_optimizations.txt", "other/module_0000.jit_f.before_optimizations.txt",
	}
	for _, f := range files {
		p := filepath.Join(dump, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("HloModule x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := PruneDump(dump); err != nil {
		t.Fatal(err)
	}
	var left []string
	filepath.WalkDir(dump, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			r, _ := filepath.Rel(dump, p)
			left = append(left, filepath.ToSlash(r))
		}
		return nil
	})
	if got := strings.Join(left, " "); got != "module_0000.jit_f.before_optimizations.txt pid-42/module_0000.jit_f.before_optimizations.txt" {
		t.Errorf("left %s", got)
	}
	// A dump folder the probe made and nothing dumped into (a torch.compile run's), or a
	// process's folder left empty, is removed.
	empty := filepath.Join(t.TempDir(), runfolder.DumpName)
	os.MkdirAll(filepath.Join(empty, "pid-7"), 0o755)
	os.WriteFile(filepath.Join(empty, "pid-7", "module_0000.jit_f.cpu_after_optimizations.txt"), nil, 0o644)
	if _, err := PruneDump(empty); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(empty); !os.IsNotExist(err) {
		t.Errorf("the empty dump folder stays: %v", err)
	}
	// --dump all prunes nothing; an empty dump folder goes all the same, a dumped one stays.
	os.MkdirAll(filepath.Join(empty, "pid-9"), 0o755)
	DropEmptyDump(empty)
	if _, err := os.Stat(empty); !os.IsNotExist(err) {
		t.Errorf("--dump all: the empty dump folder stays: %v", err)
	}
	DropEmptyDump(dump)
	if _, err := os.Stat(filepath.Join(dump, "pid-42", "module_0000.jit_f.before_optimizations.txt")); err != nil {
		t.Errorf("--dump all: a dumped module went: %v", err)
	}
}
