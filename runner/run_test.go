package runner

import (
	"bytes"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recomp/recomp/frameworks/jax"
	"github.com/recomp/recomp/internal/livetest"
	"github.com/recomp/recomp/runfolder"
)

func sh(t *testing.T, script string, opt Options) (*Result, string, string, string) {
	t.Helper()
	var out, errb, log livetest.Buffer
	opt.Command = []string{"sh", "-c", script}
	opt.Stdout, opt.Stderr, opt.Log = &out, &errb, &log
	res, err := Run(opt)
	if err != nil {
		t.Fatal(err)
	}
	return res, out.String(), errb.String(), log.String()
}

func TestExitCodes(t *testing.T) {
	if res, _, _, _ := sh(t, "exit 3", Options{}); res.ExitCode != 3 {
		t.Errorf("exit 3: %d", res.ExitCode)
	}
	if res, _, _, _ := sh(t, "kill -TERM $$", Options{}); res.ExitCode != 128+int(syscall.SIGTERM) || res.Signal != "terminated" {
		t.Errorf("killed: %d %q", res.ExitCode, res.Signal)
	}
	if _, err := Run(Options{Command: []string{"/nonexistent/program"}, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}); err == nil {
		t.Error("a command that cannot start is an error")
	}
}

// Output reaches the terminal unchanged (progress bars redrawn with \r included) and the log
// line by line, each line with the time it arrived; stdin is the command's.
func TestStreamsAndStdin(t *testing.T) {
	in, err := os.CreateTemp(t.TempDir(), "stdin")
	if err != nil {
		t.Fatal(err)
	}
	in.WriteString("from stdin\n")
	in.Seek(0, 0)
	defer in.Close()
	res, out, errs, log := sh(t, `read line; echo "got $line"; printf 'step 1\r 50%%\r100%%\n'; echo oops >&2; printf 'no newline'`, Options{Stdin: in})
	if out != "got from stdin\nstep 1\r 50%\r100%\nno newline" || errs != "oops\n" {
		t.Errorf("stdout %q stderr %q", out, errs)
	}
	lines := strings.Split(strings.TrimSuffix(log, "\n"), "\n")
	if len(lines) != 4 || res.Lines != 4 {
		t.Fatalf("log %q (%d lines)", log, res.Lines)
	}
	for _, l := range lines {
		stamp, _, _ := strings.Cut(l, " ")
		if _, err := time.Parse(time.RFC3339Nano, stamp); err != nil {
			t.Errorf("line without its arrival time: %q", l)
		}
	}
	if !strings.Contains(log, " step 1\r 50%\r100%\n") || !strings.Contains(log, " no newline\n") {
		t.Errorf("log %q", log)
	}
}

// SIGTERM sent to recomp reaches the command, which ends as it chooses.
func TestSignalsAreForwarded(t *testing.T) {
	var out livetest.Buffer
	done := make(chan *Result)
	go func() {
		res, err := Run(Options{Command: []string{"sh", "-c", `trap 'echo got TERM; exit 7' TERM; echo ready; while :; do sleep 0.05; done`},
			Stdout: &out, Stderr: &out, Log: &bytes.Buffer{}})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	for i := 0; !strings.Contains(out.String(), "ready"); i++ {
		if i > 2000 { // 20 s: a loaded machine is slow
			t.Fatal("the command did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	select {
	case res := <-done:
		if res.ExitCode != 7 || !strings.Contains(out.String(), "got TERM") || len(res.Forwarded) != 1 {
			t.Errorf("exit %d, forwarded %v, output %q", res.ExitCode, res.Forwarded, out.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the command did not end: SIGTERM was not forwarded")
	}
}

// A command with a terminal for its output sees one.
func TestTerminal(t *testing.T) {
	if _, _, err := openPTY(); err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	_, out, _, log := sh(t, `if [ -t 1 ] && [ -t 2 ]; then echo tty; else echo notty; fi`, Options{Terminal: true})
	if !strings.Contains(out, "tty") || strings.Contains(out, "notty") || !strings.Contains(log, " tty") {
		t.Errorf("stdout %q, log %q", out, log)
	}
}

// Memory stays bounded whatever the command prints: a line without an end is logged in pieces.
func TestLongLinesAreLoggedInPieces(t *testing.T) {
	var log bytes.Buffer
	res, err := Run(Options{Command: []string{"sh", "-c", "head -c 5000000 /dev/zero | tr '\\0' x"}, Stdout: &bytes.Buffer{},
		Stderr: &bytes.Buffer{}, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if res.Bytes != 5000000 || res.Lines != 5 || log.Len() < 5000000 {
		t.Errorf("bytes %d, lines %d, log %d", res.Bytes, res.Lines, log.Len())
	}
}

func TestNewFolderNeverOverwrites(t *testing.T) {
	parent := t.TempDir()
	now := time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC)
	a, err := NewFolder("", parent, "train", now)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewFolder("", parent, "train", now)
	if a == b || filepath.Base(a) != "20261123-070000-train" || filepath.Base(b) != "20261123-070000-train-2" {
		t.Errorf("%s, %s", a, b)
	}
	os.WriteFile(filepath.Join(a, "run.log"), []byte("x"), 0o644)
	if _, err := NewFolder(a, "", "", now); err == nil {
		t.Error("--out names a folder that is not empty: must refuse")
	}
	if Name([]string{"python", "-u", "scripts/train.py", "--lr", "1"}) != "train" || Name([]string{"/usr/bin/make"}) != "make" {
		t.Error("names")
	}
}

func TestEvidenceKeepsTheUsersSettings(t *testing.T) {
	settings, env := Evidence(runfolder.FrameworkAuto, runfolder.DumpBefore, "/runs/x/dump", "/runs/x/trace", nil, []string{"PATH=/bin", "JAX_LOG_COMPILES=0", "XLA_FLAGS=--xla_cpu_use_thunk_runtime=false"})
	got := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if _, dup := got[k]; dup {
			t.Errorf("%s set twice", k)
		}
		got[k] = v
	}
	if got["JAX_LOG_COMPILES"] != "0" || got["XLA_FLAGS"] != "--xla_cpu_use_thunk_runtime=false --xla_dump_to=/runs/x/dump --xla_dump_hlo_as_text" ||
		got["PT_XLA_DEBUG_LEVEL"] != "1" || got["PATH"] != "/bin" {
		t.Errorf("env %v", got)
	}
	kept := false
	for _, s := range settings {
		kept = kept || s.Name == "JAX_LOG_COMPILES" && s.Kept
	}
	if !kept {
		t.Errorf("the user's JAX_LOG_COMPILES is not reported as kept: %+v", settings)
	}
	// JAX's own settings and nothing else: compile logging, cache-miss explanations and the
	// cache-key log that says why a persistent-cache entry was missed.
	if _, env := Evidence(runfolder.Framework(jax.Name), runfolder.DumpNone, "", "/runs/x/trace", nil, nil); len(env) != len(jax.Framework.Settings) ||
		!slices.Contains(env, "JAX_DEBUG_LOG_MODULES=jax._src.cache_key") || !slices.Contains(env, "JAX_LOG_COMPILES=1") {
		t.Errorf("jax without a dump: %v", env)
	}
}

// The settings the probe narrows (JAX's cache-key log, JAX's logging level) are named to it when
// recomp set them, not when the user did or there is no probe; a name inherited from an outer
// run is replaced.
func TestEvidenceNamesNarrowedSettingsToTheProbe(t *testing.T) {
	probe := &Probe{Dir: "/runs/x/.recomp-probe", Out: "/runs/x/probe.jsonl"}
	own := func(env []string) []string {
		var out []string
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, runfolder.ProbeOwnVar+"="); ok {
				out = append(out, v)
			}
		}
		return out
	}
	for _, c := range []struct {
		probe *Probe
		env   []string
		want  []string
	}{
		{probe, nil, []string{"JAX_DEBUG_LOG_MODULES,JAX_LOGGING_LEVEL"}},
		{probe, []string{runfolder.ProbeOwnVar + "=OUTER"}, []string{"JAX_DEBUG_LOG_MODULES,JAX_LOGGING_LEVEL"}},
		{probe, []string{"JAX_DEBUG_LOG_MODULES=jax._src.cache_key"}, []string{"JAX_LOGGING_LEVEL"}},
		{probe, []string{"JAX_DEBUG_LOG_MODULES=jax._src.cache_key", "JAX_LOGGING_LEVEL=DEBUG"}, nil},
		{nil, nil, nil},
	} {
		_, env := Evidence(runfolder.Framework(jax.Name), runfolder.DumpNone, "", "", c.probe, c.env)
		if got := own(env); !slices.Equal(got, c.want) {
			t.Errorf("probe %v, env %v: %s=%v, want %v", c.probe != nil, c.env, runfolder.ProbeOwnVar, got, c.want)
		}
	}
}

// A stack that writes a trace (torch.compile's TORCH_TRACE) traces into the run folder; a trace
// folder of the user's own is kept, and named for the manifest (read in its place).
func TestEvidenceTracesIntoTheRunFolder(t *testing.T) {
	settings, env := Evidence(runfolder.FrameworkAuto, runfolder.DumpNone, "", "/runs/x/trace", nil, []string{"PATH=/bin"})
	if !slices.Contains(env, "TORCH_TRACE=/runs/x/trace") || UserTraceDir(settings) != "" {
		t.Errorf("env %v", env)
	}
	settings, env = Evidence(runfolder.FrameworkAuto, runfolder.DumpNone, "", "/runs/x/trace", nil, []string{"TORCH_TRACE=/mine/tr"})
	if n := strings.Count(strings.Join(env, "\n"), "TORCH_TRACE="); n != 1 || !slices.Contains(env, "TORCH_TRACE=/mine/tr") || UserTraceDir(settings) != "/mine/tr" {
		t.Errorf("env %v, user's folder %q", env, UserTraceDir(settings))
	}
	if _, env := Evidence(runfolder.Framework(jax.Name), runfolder.DumpNone, "", "/runs/x/trace", nil, nil); strings.Contains(strings.Join(env, " "), "TORCH_TRACE") {
		t.Errorf("jax alone: %v", env)
	}
}

// BenchmarkOverhead prints 100 MB through Run (to a discarded terminal and a log file),
// directly to /dev/null, and through tee into a log (what a user would do instead), and
// reports Run's time over each: the command must not be slowed.
func BenchmarkOverhead(b *testing.B) {
	script := "yes 0123456789012345678901234567890123456789012345678901234567890123456789 | head -c 100000000"
	dir := b.TempDir()
	var direct, tee, through time.Duration
	for range b.N {
		start0 := time.Now()
		if err := exec.Command("sh", "-c", script+" | tee "+filepath.Join(dir, "tee.log")+" > /dev/null").Run(); err != nil {
			b.Fatal(err)
		}
		tee += time.Since(start0)
		start := time.Now()
		cmd := exec.Command("sh", "-c", script)
		devnull, _ := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		cmd.Stdout = devnull
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		devnull.Close()
		direct += time.Since(start)
		log, err := os.Create(filepath.Join(dir, "run.log"))
		if err != nil {
			b.Fatal(err)
		}
		start = time.Now()
		if _, err := Run(Options{Command: []string{"sh", "-c", script}, Stdout: discard{}, Stderr: discard{}, Log: log}); err != nil {
			b.Fatal(err)
		}
		through += time.Since(start)
		log.Close()
	}
	b.SetBytes(100_000_000)
	b.ReportMetric(through.Seconds()/direct.Seconds(), "ratio")
	b.ReportMetric(through.Seconds()/tee.Seconds(), "ratio_to_tee")
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// A command that leaves a process behind holding its output open ends Run within the grace
// period, says so, and logs what arrived (under pipes and under a pseudo-terminal).
func TestOutputHeldOpenByAGrandchild(t *testing.T) {
	for _, terminal := range []bool{false, true} {
		start := time.Now()
		res, out, _, log := sh(t, "echo started; (sleep 30; echo late) & echo done", Options{Grace: 300 * time.Millisecond, Terminal: terminal})
		took := time.Since(start)
		if took > 5*time.Second {
			t.Errorf("terminal %v: Run took %v with a grandchild holding the output", terminal, took)
		}
		if !res.HeldOpen || res.ExitCode != 0 {
			t.Errorf("terminal %v: held open %v, exit %d", terminal, res.HeldOpen, res.ExitCode)
		}
		if !strings.Contains(out, "done") || !strings.Contains(log, "started") || !strings.Contains(log, "done") {
			t.Errorf("terminal %v: out %q log %q", terminal, out, log)
		}
	}
	res, _, _, _ := sh(t, "echo quick", Options{Grace: 300 * time.Millisecond})
	if res.HeldOpen {
		t.Error("a command whose output ended with it: held open")
	}
}

// failingWriter is a terminal that went away: every write fails.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.EPIPE }

// Output that can no longer reach the terminal still reaches the log, and the command runs to
// its end.
func TestClosedTerminalKeepsTheLog(t *testing.T) {
	var log livetest.Buffer
	res, err := Run(Options{Command: []string{"sh", "-c", "for i in 1 2 3 4 5; do echo line $i; done; exit 4"},
		Stdout: failingWriter{}, Stderr: failingWriter{}, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 4 || strings.Count(log.String(), "line ") != 5 {
		t.Errorf("exit %d, log %q", res.ExitCode, log.String())
	}
}

// A setting of the user's own that switches a stack's compile logging off is kept, and said to be
// off for that stack only (TF_CPP_VMODULE serves TF and TF-IPU: each reads its own module);
// one that leaves it on is the user's, and switches nothing off.
func TestLoggingOff(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want map[string][]string
	}{
		{[]string{"JAX_LOG_COMPILES=0"}, map[string][]string{"jax": {"JAX_LOG_COMPILES=0"}}},
		{[]string{"JAX_LOG_COMPILES=False", "PT_XLA_DEBUG_LEVEL=0"}, map[string][]string{"jax": {"JAX_LOG_COMPILES=False"}, "torch-xla": {"PT_XLA_DEBUG_LEVEL=0"}}},
		{[]string{"JAX_LOG_COMPILES=1", "TF_CPP_MIN_LOG_LEVEL=0", "PT_XLA_DEBUG_LEVEL=2"}, map[string][]string{}},
		{[]string{"TF_CPP_MIN_LOG_LEVEL=2", "POPLAR_LOG_LEVEL=WARN"}, map[string][]string{"tf": {"TF_CPP_MIN_LOG_LEVEL=2"}, "ipu": {"POPLAR_LOG_LEVEL=WARN"}}},
		{[]string{"TF_CPP_VMODULE=device_compilation_profiler=2"}, map[string][]string{"ipu": {"TF_CPP_VMODULE=device_compilation_profiler=2"}}},
		{[]string{"TF_CPP_VMODULE=other=3"}, map[string][]string{"tf": {"TF_CPP_VMODULE=other=3"}, "ipu": {"TF_CPP_VMODULE=other=3"}}},
	} {
		settings, _ := Evidence("auto", runfolder.DumpNone, "", "", nil, c.env)
		if got := LoggingOff(settings); !maps.EqualFunc(got, c.want, slices.Equal) {
			t.Errorf("%v: logging off %v, want %v", c.env, got, c.want)
		}
		said := strings.Join(Describe(settings), "\n")
		for fw := range c.want {
			if !strings.Contains(said, "it switches the compile logging of") || !strings.Contains(said, fw) {
				t.Errorf("%v: the settings do not say %s's logging is off:\n%s", c.env, fw, said)
			}
		}
	}
}
