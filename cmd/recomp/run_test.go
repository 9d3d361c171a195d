package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recomp/recomp/internal/skipped"
	"github.com/recomp/recomp/report"
	"github.com/recomp/recomp/runfolder"
)

// recomp run with a plain shell program: the run folder, its manifest and reports, the exit
// code, and the run folder read back by scan, guard and explain.
func TestRunShellProgram(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	script := `printf 'Begin XLA compilation: cluster_1.4  (Hash: 0xaaa) for ordinal  0\n'; echo "step 1"; ` +
		`printf 'Begin XLA compilation: cluster_1.9  (Hash: 0xbbb) for ordinal  0\n' >&2; exit 4`
	code, _, stderr := runIn(t, "", "run", "--out", dir, "--guard", "--", "sh", "-c", script)
	if code != 4 {
		t.Fatalf("exit %d, want the command's 4:\n%s", code, stderr)
	}
	for _, f := range []string{"run.log", "manifest.json", "report.json", "report.md", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the run folder lacks %s", f)
		}
	}
	m, err := runfolder.ReadManifest(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if m.ExitCode != 4 || m.Command[0] != "sh" || m.OutputLines != 3 || len(m.Settings) == 0 || m.WallSeconds <= 0 {
		t.Errorf("manifest %+v", m)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	var doc report.RunJSON
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Scan.Summary.Compilations != 2 || doc.Gate == nil || doc.Gate.Passed {
		t.Errorf("report %+v", doc)
	}
	if !strings.Contains(stderr, "compile logging on for jax, tf, torch, torch-xla, ipu") || strings.Contains(stderr, "recomp run: XLA_FLAGS=") ||
		!strings.Contains(stderr, "recomp run FAIL") {
		t.Errorf("stderr %s", stderr)
	}
	if _, _, stderr := runIn(t, "", "run", "-v", "--out", dir+"-v", "--", "true"); !strings.Contains(stderr, "recomp run: XLA_FLAGS=") {
		t.Errorf("-v shows the settings: %s", stderr)
	}
	// The run folder is accepted wherever a log is.
	if code, out, _ := runIn(t, "", "scan", dir); code != 0 || !strings.Contains(out, "compilations 2") {
		t.Errorf("scan RUN_DIR: exit %d\n%s", code, out)
	}
	if code, _, _ := runIn(t, "", "guard", dir); code != 1 {
		t.Errorf("guard RUN_DIR: exit %d", code)
	}
	// An existing run folder is never written over.
	if code, _, stderr := runIn(t, "", "run", "--out", dir, "--", "true"); code != exitUsage || !strings.Contains(stderr, "never writes over") {
		t.Errorf("run into a used folder: exit %d %s", code, stderr)
	}
	if code, _, _ := runIn(t, "", "run", "--out", filepath.Join(t.TempDir(), "ok"), "--", "true"); code != 0 {
		t.Errorf("a command that succeeds: exit %d", code)
	}
	// A command that cannot be started leaves no folder behind.
	missing := filepath.Join(t.TempDir(), "missing")
	if code, _, stderr := runIn(t, "", "run", "--out", missing, "--", "no-such-command-recomp"); code != exitUsage || !strings.Contains(stderr, "no-such-command-recomp") {
		t.Errorf("a missing command: exit %d %s", code, stderr)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("a run folder was made for a command that could not start")
	}
}

// TestLiveRecompRun runs real JAX, TF and PyTorch/XLA programs through recomp run with the
// frameworks' own venvs (RECOMP_LIVE_<MATRIX>): the program sets no flag of its own, so what
// recomp finds is what recomp run switched on.
func TestLiveRecompRun(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	for _, c := range []struct {
		env, program string
		extra        []string
		family       string
		cause        string
		site         string // the user's line that made the program compile again
	}{
		{"RECOMP_LIVE_JAX_0_12", "jax_step.py", []string{"JAX_PLATFORMS=cpu"}, "jit_train_step", "batch_size", "jax_step.py:17"},
		{"RECOMP_LIVE_TF_2_21", "tf_step.py", []string{"CUDA_VISIBLE_DEVICES="}, "__inference_train_step_N", "batch_size", "tf_step.py:13"},
		{"RECOMP_LIVE_TORCH_XLA_2_9", "torch_xla_step.py", []string{"PJRT_DEVICE=CPU"}, "torch_xla_step.py:16 (train_step)", "batch_size", "torch_xla_step.py:16"},
	} {
		t.Run(c.program, func(t *testing.T) {
			py := os.Getenv(c.env)
			if py == "" {
				skipped.Skip(t, skipped.Live, c.env, fmt.Sprintf("%s is not set: %s was not run through recomp run (.ci/run sets it when the venv installs)", c.env, c.program))
			}
			for _, kv := range c.extra {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			dir := filepath.Join(t.TempDir(), "run")
			doc, stderr := runLive(t, dir, py, c.program)
			var fams []string
			found := false
			for _, m := range doc.Scan.Modules {
				fams = append(fams, m.Family)
				found = found || (m.Family == c.family && m.Recompiled && m.Compilations == 2)
			}
			if !found {
				t.Errorf("no family %s compiled twice: %v\n%s", c.family, fams, stderr)
			}
			if doc.Explain == nil || len(doc.Explain.Pairs) == 0 || doc.Explain.Pairs[len(doc.Explain.Pairs)-1].Causes[0].Kind != c.cause {
				t.Errorf("explain: %+v", doc.Explain)
			}
			// The answer: the program compiled twice, once after warm-up, for the batch size, at
			// the program's own line, and the line heads the call sites.
			v := doc.Scan.Verdict
			if v == nil || len(v.Programs) == 0 {
				t.Fatalf("no verdict:\n%s", stderr)
			}
			p := v.Programs[0]
			if p.Program != c.family || p.Compilations != 2 || p.AfterWarmup != 1 || len(p.Causes) == 0 || p.Causes[0].Kind != c.cause ||
				len(p.Causes[0].Sites) == 0 || !strings.Contains("/"+p.Causes[0].Sites[0], "/"+c.site) {
				t.Errorf("verdict %+v", p)
			}
			if len(v.CallSites) == 0 || !strings.Contains("/"+v.CallSites[0].Site, "/"+c.site) || v.CallSites[0].AfterWarmup != 1 {
				t.Errorf("call sites %+v", v.CallSites)
			}
			if !strings.Contains(stderr, "✗ "+c.family+" compiled 2× (1 after warm-up") {
				t.Errorf("the terminal's answer:\n%s", stderr)
			}
			m, err := runfolder.ReadManifest(filepath.Join(dir, "manifest.json"))
			if err != nil || len(m.Versions) == 0 || m.FirstStepSeconds < 0 {
				t.Errorf("manifest %+v (%v)", m, err)
			}
		})
	}
}

// livePython is the Python a live test runs its program with (env names it); the test skips under
// -short, and loudly where env is not set (what: what was not done).
func livePython(t *testing.T, env, what string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short")
	}
	py := os.Getenv(env)
	if py == "" {
		skipped.Skip(t, skipped.Live, env, fmt.Sprintf("%s is not set: %s", env, what))
	}
	return py
}

// TestLiveJAXStatic runs a JAX program whose static argument changes every epoch through recomp
// run (RECOMP_LIVE_JAX_0_12): its first live line names the static argument and the values it
// took so far, from the probe, as the report at the end names them all.
func TestLiveJAXStatic(t *testing.T) {
	py := livePython(t, "RECOMP_LIVE_JAX_0_12", "jax_static.py was not run through recomp run")
	t.Setenv("JAX_PLATFORMS", "cpu")
	doc, stderr := runLive(t, filepath.Join(t.TempDir(), "run"), py, "jax_static.py")
	// the first compilation after warm-up is epoch 1's: dropout's new value
	if !strings.Contains(stderr, "recomp run: ✗ jit_train_step compiled after warm-up (compilation 2): static argument `dropout` changed 0.2 → 0.1, at jax_static.py:") {
		t.Errorf("no live line names dropout:\n%s", stderr)
	}
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "compiled after warm-up") && strings.Contains(l, "most often a static argument") {
			t.Errorf("a live line guesses what the probe saw: %s", l)
		}
	}
	v := doc.Scan.Verdict
	if v == nil || len(v.Programs) == 0 || len(v.Programs[0].Causes) == 0 || v.Programs[0].Causes[0].Kind != "static_argument" ||
		!strings.Contains(v.Programs[0].Causes[0].Change, "`dropout` changed 0.2 → 0.1 → 0.05") || v.Programs[0].Compilations != 3 {
		t.Errorf("verdict %+v", v)
	}
}

// TestLiveKerasSteps runs Keras programs through recomp run on TF (RECOMP_LIVE_TF_2_21) and on JAX
// (RECOMP_LIVE_KERAS_JAX, KERAS_BACKEND=jax): the last
// partial batch of evaluate and of predict are each one step compiled again, named by the step
// first, with the sizes and advice that keeps every sample; a clean Keras program passes the guard.
func TestLiveKerasSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	// The same programs on both of Keras's XLA backends: TF (traced functions) and JAX (jitted steps).
	for _, b := range []struct{ name, env, backend string }{{"tf", "RECOMP_LIVE_TF_2_21", "tensorflow"}, {"jax", "RECOMP_LIVE_KERAS_JAX", "jax"}} {
		t.Run(b.name, func(t *testing.T) {
			py := os.Getenv(b.env)
			if py == "" {
				skipped.Skip(t, skipped.Live, b.env, fmt.Sprintf("%s is not set: the Keras programs were not run through recomp run on %s", b.env, b.backend))
			}
			t.Setenv("CUDA_VISIBLE_DEVICES", "")
			t.Setenv("KERAS_BACKEND", b.backend)
			liveKerasSteps(t, py)
		})
	}
}

func liveKerasSteps(t *testing.T, py string) {
	doc, stderr := runLive(t, filepath.Join(t.TempDir(), "run"), py, "keras_steps.py")
	want := map[string][]int{"predict step": {256, 232}, "test step (evaluate)": {64, 36}}
	for _, p := range doc.Scan.Verdict.Programs {
		sizes, ok := want[p.Role]
		if !ok {
			t.Errorf("a program that is no Keras evaluate or predict step compiled again: %+v", p)
			continue
		}
		delete(want, p.Role)
		if p.Compilations != 2 || p.AfterWarmup != 1 || len(p.Causes) == 0 || p.Causes[0].Kind != "batch_size" || p.Sizes == nil ||
			!slices.Equal(p.Sizes.Seen, sizes) || strings.Contains(p.Action, "drop_remainder") || p.Framework == "jax" && strings.Contains(p.Action, "tf.data") {
			t.Errorf("the %s: %+v", p.Role, p)
		}
		if !strings.Contains(stderr, "✗ Keras "+p.Role+" · ") {
			t.Errorf("the terminal does not name the %s first:\n%s", p.Role, stderr)
		}
	}
	if len(want) > 0 {
		t.Errorf("steps not in the verdict: %v\n%s", want, stderr)
	}
	clean := filepath.Join(t.TempDir(), "clean")
	runLive(t, clean, py, "keras_clean.py")
	if code, out, _ := runIn(t, "", "guard", clean); code != 0 {
		t.Errorf("guard fails the clean Keras program:\n%s", out)
	}
}

// runLive runs testdata/runs/gen/live/PROGRAM with py through recomp run into dir, and returns its
// report.json and what recomp said on standard error.
func runLive(t *testing.T, dir, py, program string) (report.RunJSON, string) {
	t.Helper()
	prog, _ := filepath.Abs(filepath.Join("../../testdata/runs/gen/live", program))
	code, _, stderr := runIn(t, "", "run", "--out", dir, "--", py, prog)
	if code != 0 {
		t.Fatalf("%s: exit %d:\n%s", program, code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc report.RunJSON
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc, stderr
}

// TestLiveJAXCacheKeyLines runs a JAX program through recomp run (RECOMP_LIVE_JAX_0_12) without a
// persistent cache and with one set in code after import: JAX keys every compilation either
// way, and the probe keeps its cache-key log (JAX_DEBUG_LOG_MODULES, recomp's setting) to the run
// with the cache folder, which recomp diff RUN_A RUN_B reads.
func TestLiveJAXCacheKeyLines(t *testing.T) {
	py := livePython(t, "RECOMP_LIVE_JAX_0_12", "jax_cache_in_code.py was not run through recomp run")
	t.Setenv("JAX_PLATFORMS", "cpu")
	for _, cache := range []string{"", filepath.Join(t.TempDir(), "jax-cache")} {
		t.Setenv("JAX_CACHE_IN_CODE", cache)
		dir := filepath.Join(t.TempDir(), "run")
		runLive(t, dir, py, "jax_cache_in_code.py")
		log, err := os.ReadFile(filepath.Join(dir, "run.log"))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(log), "get_cache_key hash of serialized"); (n > 0) != (cache != "") {
			t.Errorf("cache folder %q: %d cache-key lines in run.log", cache, n)
		}
	}
}
