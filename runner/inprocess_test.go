package runner

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/runfolder"
)

// A session opened for a process recomp did not start: its folder has the probe, an empty
// run.log and a manifest marked running; the variables name where the probe writes, the user's
// own settings are left out; Close writes the final manifest and removes the probe.
func TestSessionOpenClose(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	start := time.Now()
	s, err := Prepare(SessionOptions{Out: dir, Command: []string{"pytest", "-q"}, Framework: runfolder.FrameworkAuto,
		Dump: runfolder.DumpBefore, Probe: true, Environ: []string{"PATH=/bin", "JAX_LOG_COMPILES=0"}, Start: start})
	if err != nil {
		t.Fatal(err)
	}
	vars, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	if vars[runfolder.ProbeLogVar] != filepath.Join(dir, runfolder.LogName) || vars[runfolder.ProbeOutVar] != filepath.Join(dir, runfolder.ProbeName) {
		t.Errorf("vars %v", vars)
	}
	if _, ok := vars["JAX_LOG_COMPILES"]; ok {
		t.Error("the user's own JAX_LOG_COMPILES is set again")
	}
	if s.ProbeDir() == "" {
		t.Fatal("no probe")
	}
	if _, err := os.Stat(filepath.Join(s.ProbeDir(), "sitecustomize.py")); err != nil {
		t.Fatal(err)
	}
	m, err := runfolder.ReadManifest(filepath.Join(dir, runfolder.ManifestName))
	if err != nil || !m.Running {
		t.Fatalf("manifest %+v, %v", m, err)
	}
	if st, err := os.Stat(filepath.Join(dir, runfolder.LogName)); err != nil || st.Size() != 0 {
		t.Fatalf("run.log %v", err)
	}
	m, err = Close(dir, 1, start.Add(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	back, err := runfolder.ReadManifest(filepath.Join(dir, runfolder.ManifestName))
	if err != nil || back.Running || back.ExitCode != 1 || back.WallSeconds < 1.9 || m.ExitCode != 1 {
		t.Errorf("manifest %+v, %v", back, err)
	}
	if _, err := os.Stat(s.ProbeDir()); err == nil {
		t.Error("the probe was left")
	}
	if _, err := Close(filepath.Join(t.TempDir(), "none"), 0, time.Now()); err == nil {
		t.Error("closed a folder without a manifest")
	}
}

// OpenSession: a session without a command is pytest's, the folder absolute, the probe made;
// OpenedEvents names compilations only and never null lists.
func TestOpenSession(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	out, err := OpenSession(SessionOptions{Out: dir, Framework: runfolder.FrameworkAuto, Dump: runfolder.DumpBefore,
		Environ: []string{"PATH=/bin"}, Start: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if out.Folder != dir || out.Probe == "" || out.Env[runfolder.ProbeLogVar] == "" || len(out.Compiles) == 0 || out.Quiet == nil {
		t.Errorf("opened %+v", out)
	}
	m, err := runfolder.ReadManifest(filepath.Join(dir, runfolder.ManifestName))
	if err != nil || len(m.Command) == 0 || m.Command[0] != "pytest" {
		t.Errorf("manifest %+v, %v", m, err)
	}
	if _, err := OpenSession(SessionOptions{Out: dir, Framework: runfolder.FrameworkAuto, Dump: runfolder.DumpBefore, Start: time.Now()}); err == nil {
		t.Error("opened a session into a folder that is not empty")
	}
	ev := OpenedEvents()
	if ev.Folder != "" || ev.Env == nil || ev.Settings == nil || ev.Quiet == nil || len(ev.Compiles) == 0 {
		t.Errorf("events %+v", ev)
	}
}

// A session inside the process sets no setting whose lines only the stacks' native code prints
// (they would go to pytest's captured output, never to run.log), in its variables or its
// manifest; the user's own value of one stays, as under recomp run; recomp run sets them all.
func TestOpenSessionLeavesNativeLinesOut(t *testing.T) {
	native := []string{"TF_CPP_MIN_LOG_LEVEL", "TF_CPP_VMODULE", "PT_XLA_DEBUG_LEVEL", "PT_XLA_DEBUG_MAX_FRAME", "POPLAR_LOG_LEVEL", "POPART_LOG_LEVEL"}
	dir := filepath.Join(t.TempDir(), "run")
	out, err := OpenSession(SessionOptions{Out: dir, Framework: runfolder.FrameworkAuto, Dump: runfolder.DumpBefore,
		Environ: []string{"PATH=/bin", "TF_CPP_VMODULE=device_compiler=2"}, Start: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	m, err := runfolder.ReadManifest(filepath.Join(dir, runfolder.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	kept := map[string]bool{}
	for _, s := range m.Settings {
		kept[s.Name] = s.Kept
	}
	for _, name := range native {
		_, set := out.Env[name]
		if name == "TF_CPP_VMODULE" {
			if set || !kept[name] {
				t.Errorf("the user's %s: set %v, kept in the manifest %v", name, set, kept[name])
			}
			continue
		}
		if _, listed := kept[name]; set || listed {
			t.Errorf("%s: in the variables %v, in the manifest %v", name, set, listed)
		}
	}
	if out.Env["JAX_LOG_COMPILES"] != "1" || out.Env["TORCH_LOGS"] == "" {
		t.Errorf("the stacks' Python logging left out too: %v", out.Env)
	}
	_, env := Evidence(runfolder.FrameworkAuto, runfolder.DumpNone, "", "", nil, nil)
	for _, name := range native {
		if !slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, name+"=") }) {
			t.Errorf("recomp run does not set %s: %v", name, env)
		}
	}
}

// Programs names each probe record's program as the verdict names it: JAX's probe names
// jit(predict) (0.12) or predict (older), the verdict jit_predict; a lambda's with where it is
// defined, as the verdict tells lambdas apart; a record that names none has none.
func TestPrograms(t *testing.T) {
	got := Programs([]ProbeName{{"jax", "jit(predict)", ""}, {"jax", "predict", ""}, {"jax", "", ""}, {"jax", "jit(step)", ""},
		{"jax", "jit(<lambda>)", "t.py:7"}, {"jax", "", "t.py:7"}})
	want := []string{"jit_predict", "jit_predict", "", "jit_step", "jit__lambda [t.py:7]", ""}
	if !slices.Equal(got, want) {
		t.Errorf("Programs: %q, want %q", got, want)
	}
	if got := Programs(nil); got == nil || len(got) != 0 {
		t.Errorf("Programs(nil): %#v, want an empty list", got)
	}
}
