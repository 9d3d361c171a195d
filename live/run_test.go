package live

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/runfolder"
	"github.com/recomp/recomp/runner"
)

func TestMain(m *testing.M) {
	if runner.IsWatchdog() { // a Run in this test binary started it as its watchdog
		os.Exit(runner.Watchdog(os.Stdin))
	}
	os.Exit(m.Run())
}

// jaxLines are what JAX prints, with the logging recomp run switches on, for a program that
// compiles train_step at batch 32 and again at batch 24 (the second after warm-up).
const jaxLines = `echo "WARNING:jax._src.interpreters.pxla:Compiling jit(train_step) with global shapes and types (ShapedArray(float32[32,8]),). Argument mapping: (UnspecifiedValue,)." >&2
echo "WARNING:jax._src.dispatch:Finished XLA compilation of jit(train_step) in 0.200000000 sec" >&2
echo "step 0"
printf 'WARNING:jax._src.pjit:TRACING CACHE MISS at /home/me/train.py:64:12 (main):\n  for train_step defined at /home/me/train.py:20\n  all previously seen cache keys differ. For the closest previous key:\n  different input types:\n  * at x, now f32[24,8] and before f32[32,8]\n' >&2
echo "WARNING:jax._src.interpreters.pxla:Compiling jit(train_step) with global shapes and types (ShapedArray(float32[24,8]),). Argument mapping: (UnspecifiedValue,)." >&2
echo "WARNING:jax._src.dispatch:Finished XLA compilation of jit(train_step) in 2.500000000 sec" >&2
`

// Run runs the command into its run folder, says the compilation after warm-up as it happens,
// stops the command at it when the policy says so (the manifest and the explained run say so
// too), and lets a command the policy does not stop run to its end.
func TestRun(t *testing.T) {
	forever := jaxLines + `i=0; while [ $i -lt 400 ]; do echo "step $i"; sleep 0.05; i=$((i+1)); done`
	for _, c := range []struct {
		name   string
		script string
		live   bool
		stop   StopPolicy
	}{
		{"stopped", forever, true, StopPolicy{Count: 1}},
		{"budget left", jaxLines, true, StopPolicy{Budget: time.Minute}},
		{"quiet", jaxLines, false, StopPolicy{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			var stdout, stderr bytes.Buffer
			start := time.Now()
			res, err := Run(RunOptions{Session: runner.SessionOptions{Out: dir, Command: []string{"sh", "-c", c.script},
				Framework: runfolder.FrameworkAuto, Dump: runfolder.DumpNone, Environ: os.Environ(), Start: start},
				Live: c.live, Stop: c.stop, StopGrace: time.Second, Stdout: &stdout, Stderr: &stderr})
			if err != nil {
				t.Fatal(err)
			}
			if time.Since(start) > 15*time.Second || res.Dir != dir || len(res.Lost) > 0 || res.Missed != 0 || res.Run == nil {
				t.Fatalf("after %v: %+v\n%s", time.Since(start), res, stderr.String())
			}
			said := stderr.String()
			if !strings.HasPrefix(said, "recomp run: run folder "+dir+"; compile logging on for ") {
				t.Errorf("the first line does not name the folder and the logging:\n%s", said)
			}
			live := "recomp run: ✗ jit_train_step compiled after warm-up (compilation 2): batch size, x: f32[32,8] → f32[24,8], at train.py:64 (main), 2.50 s compiling"
			if strings.Contains(said, live) != c.live {
				t.Errorf("live line said: %v, want %v:\n%s", !c.live, c.live, said)
			}
			stopped := c.stop.Count > 0
			if (res.Command.Stopped != "") != stopped || (res.Manifest.Stopped != "") != stopped ||
				strings.Contains(said, "stopping the command: jit_train_step compiled after warm-up") != stopped {
				t.Errorf("stopped %q, manifest %q, want stopped %v:\n%s", res.Command.Stopped, res.Manifest.Stopped, stopped, said)
			}
			if res.Run.Scan.Ledger.Summary.AfterWarmup != 1 {
				t.Errorf("the run explained: %d compilation(s) after warm-up, want 1", res.Run.Scan.Ledger.Summary.AfterWarmup)
			}
			if _, err := runfolder.ReadManifest(filepath.Join(dir, runfolder.ManifestName)); err != nil {
				t.Error(err)
			}
		})
	}
	if _, err := Run(RunOptions{Session: runner.SessionOptions{Command: []string{"no-such-command-recomp"}}}); err == nil ||
		!strings.Contains(err.Error(), "no-such-command-recomp") {
		t.Errorf("a command not found: %v", err)
	}
}

// LoggingOn names the stacks whose compile logging was switched on, and those left off as the
// user set them, with what judges them then.
func TestLoggingOn(t *testing.T) {
	all := frameworks.SelectedNames("auto")
	if got := LoggingOn("auto", nil, true); got != "compile logging on for "+strings.Join(all, ", ")+", to run.log only (-v shows it and the settings)" {
		t.Errorf("%q", got)
	}
	settings, _ := runner.Evidence(runfolder.FrameworkAuto, runfolder.DumpNone, "", "", nil, []string{"JAX_LOG_COMPILES=0"})
	got := LoggingOn("auto", settings, false)
	if strings.Contains(got, "on for jax") || !strings.Contains(got, "left off as you set it for jax (JAX_LOG_COMPILES=0): nothing records their compilations (--no-probe)") {
		t.Errorf("%q", got)
	}
}
