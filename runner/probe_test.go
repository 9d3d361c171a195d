package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The probe, in a real Python: it chains the user's own sitecustomize, waits for the program
// to import jax, and writes each compilation jax.monitoring reports with the program's own line
// (a stand-in jax package records the events the way JAX does).
func TestProbeInPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	dir := t.TempDir()
	p, err := WriteProbe(dir)
	if err != nil {
		t.Fatal(err)
	}
	user := filepath.Join(dir, "user")
	lib := filepath.Join(dir, "lib", "site-packages", "jax")
	for path, text := range map[string]string{
		filepath.Join(user, "sitecustomize.py"): "print('the user sitecustomize ran')\n",
		filepath.Join(lib, "__init__.py"):       "from . import monitoring\n",
		filepath.Join(lib, "monitoring.py"): "_ls = []\n" +
			"def register_event_duration_secs_listener(cb):\n    _ls.append(cb)\n" +
			"def record(event, d, **kw):\n    for cb in _ls:\n        cb(event, d, **kw)\n" +
			"def jit_call(name):\n    record('/jax/core/compile/backend_compile_duration', 0.5, fun_name=name)\n",
		filepath.Join(dir, "train.py"): "import jax\n\ndef step():\n    jax.monitoring.jit_call('jit(step)')\n\nstep()\njax.monitoring.jit_call('jit(step)')  # line 7\nprint('done')\n",
	} {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, env := Evidence(FrameworkAuto, DumpNone, "", p, []string{"PATH=" + os.Getenv("PATH"), "PYTHONPATH=" + user + ":" + filepath.Join(dir, "lib", "site-packages")})
	cmd := exec.Command(py, "train.py")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "the user sitecustomize ran") || !strings.Contains(string(out), "done") {
		t.Fatalf("%v: %s", err, out)
	}
	recs, err := ReadProbe(dir)
	if err != nil || len(recs) != 2 {
		t.Fatalf("records %+v, %v", recs, err)
	}
	for i, r := range recs {
		// the first frame of the program's own code: inside step, then the module's line 7
		line, fn := []int{4, 7}[i], []string{"step", "<module>"}[i]
		if r.Framework != "jax" || r.Event != "compile" || r.Name != "jit(step)" || r.Seconds != 0.5 ||
			filepath.Base(r.File) != "train.py" || r.Line != line || r.Function != fn {
			t.Errorf("record %d: %+v", i, r)
		}
	}
	// Switched off, it writes nothing and the program runs the same.
	os.Remove(p.Out)
	cmd = exec.Command(py, "train.py")
	cmd.Dir, cmd.Env = dir, append(env, "RECOMP_PROBE=0")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "done") {
		t.Fatalf("%v: %s", err, out)
	}
	if recs, _ := ReadProbe(dir); len(recs) != 0 {
		t.Errorf("RECOMP_PROBE=0 wrote %d records", len(recs))
	}
	if err := p.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p.Dir); err == nil {
		t.Error("the probe's folder is left")
	}
}
