//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
