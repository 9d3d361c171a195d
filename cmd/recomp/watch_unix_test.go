//go:build unix

package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/internal/follow"
)

// The lines JAX logs for one compilation of train_step at a batch size, the first or (with
// its tracing-cache miss) a later one.
func jaxCompile(batch, before string) string {
	s := ""
	if before != "" {
		s = "WARNING:jax._src.pjit:TRACING CACHE MISS at /srv/train.py:64:12 (main):\n  for train_step defined at /srv/train.py:20\n" +
			"  all previously seen cache keys differ. For the closest previous key:\n  different input types:\n" +
			"  * at x, now f32[" + batch + ",8] and before f32[" + before + ",8]\n"
	}
	return s + "WARNING:jax._src.interpreters.pxla:Compiling jit(train_step) with global shapes and types (ShapedArray(float32[" + batch + ",8]),). Argument mapping: (UnspecifiedValue,).\n" +
		"WARNING:jax._src.dispatch:Finished XLA compilation of jit(train_step) in 0.500000000 sec\nstep\n"
}

func appendLog(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// waitFor polls what the watcher printed until it holds want, or fails at the deadline.
func waitFor(t *testing.T, out *lockedBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("recomp watch did not say %q; it said:\n%s", want, out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func startWatch(t *testing.T, paths []string, policy stopPolicy) (*lockedBuffer, context.CancelFunc, chan error) {
	t.Helper()
	fl, err := follow.New(paths)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fl.Close)
	var out, warn lockedBuffer
	w := &watcher{fl: fl, out: &out, warn: &warn, tally: &liveTally{policy: policy}}
	w.poll() // what the logs hold when it starts, read before the test goes on
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.run(ctx, 5*time.Millisecond) }()
	t.Cleanup(cancel)
	return &out, cancel, done
}

// recomp watch follows a log through a rotation by rename and a truncation in place: the log is
// one process throughout (the compilation in the rotated log is known, so the one in the new
// file is after warm-up), each compilation after warm-up is said as it is written, and Ctrl-C
// gives the summary.
func TestWatchRotationAndTruncation(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "app.log")
	appendLog(t, log, jaxCompile("32", ""))
	out, cancel, done := startWatch(t, []string{log}, stopPolicy{})
	appendLog(t, log, "step\nstep\n")
	if err := os.Rename(log, log+".1"); err != nil {
		t.Fatal(err)
	}
	appendLog(t, log, jaxCompile("24", "32"))
	waitFor(t, out, "recomp watch: "+log+": ✗ jit_train_step compiled after warm-up (compilation 2): batch size, x: f32[32,8] → f32[24,8], at train.py:64 (main), 0.50 s compiling\n")
	if err := os.Truncate(log, 0); err != nil {
		t.Fatal(err)
	}
	appendLog(t, log, "restarted\n"+jaxCompile("16", "24"))
	waitFor(t, out, "(compilation 3): batch size, x: f32[24,8] → f32[16,8]")
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "recomp watch: "+log+": 3 compilation(s), 1.50 s compiling; 2 after warm-up (1.00 s); compiled again: jit_train_step 3×\n") {
		t.Errorf("no summary:\n%s", out.String())
	}
	if n := strings.Count(out.String(), "compiled after warm-up ("); n != 2 {
		t.Errorf("%d live lines, want 2:\n%s", n, out.String())
	}
}

// --fail-on-recompile: recomp watch fails at the first compilation after warm-up written to a
// log in a folder it follows, a file that appeared after it started.
func TestWatchFailOnRecompile(t *testing.T) {
	dir := t.TempDir()
	out, _, done := startWatch(t, []string{dir}, stopPolicy{Count: 1})
	appendLog(t, filepath.Join(dir, "worker-1.log"), jaxCompile("32", ""))
	appendLog(t, filepath.Join(dir, "worker-1.log"), jaxCompile("24", "32"))
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("recomp watch did not fail; it said:\n%s", out.String())
	}
	var xe *exitError
	if !errors.As(err, &xe) || xe.code != exitFound {
		t.Errorf("ended with %v, want exit %d", err, exitFound)
	}
	if !strings.Contains(out.String(), "recomp watch: failing: jit_train_step compiled after warm-up at train.py:64 (main)") ||
		strings.Contains(out.String(), "stopping the command") { // watch runs no command
		t.Errorf("it said:\n%s", out.String())
	}
}

// A folder that cannot be read (here: removed after recomp watch started) is said once, not at
// every poll; standard input is refused.
func TestWatchWarnsOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	os.Mkdir(dir, 0o755)
	fl, err := follow.New([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	os.Remove(dir)
	var out, warn lockedBuffer
	w := &watcher{fl: fl, out: &out, warn: &warn, tally: &liveTally{}}
	for range 3 {
		w.poll()
	}
	if n := strings.Count(warn.String(), "no such file"); n != 1 {
		t.Errorf("said %d times:\n%s", n, warn.String())
	}
}

func TestWatchRefusesStdin(t *testing.T) {
	if code, _, stderr := runIn(t, "", "watch", "-"); code != exitUsage || !strings.Contains(stderr, "not standard input") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// The recomp binary: recomp watch says the compilation after warm-up as it is written, and
// Ctrl-C (SIGINT) ends it with the summary and exit 0.
func TestWatchInterrupted(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "recomp") // the test binary runs as recomp (TestMain)
	if err := os.Symlink(os.Args[0], bin); err != nil {
		t.Skip(err)
	}
	log := filepath.Join(t.TempDir(), "app.log")
	appendLog(t, log, jaxCompile("32", ""))
	var out lockedBuffer
	cmd := exec.Command(bin, "watch", "--interval", "10ms", log)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	appendLog(t, log, jaxCompile("24", "32"))
	waitFor(t, &out, "✗ jit_train_step compiled after warm-up (compilation 2)")
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("%v:\n%s", err, out.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("recomp watch did not end at SIGINT:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "recomp watch: 1 log(s), 1 compilation(s) after warm-up\n") {
		t.Errorf("no summary:\n%s", out.String())
	}
}
