//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/internal/livetest"
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
	livetest.AppendLog(t, log, jaxCompile("32", ""))
	var out livetest.Buffer
	cmd := exec.Command(bin, "watch", "--interval", "10ms", log)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	livetest.AppendLog(t, log, jaxCompile("24", "32"))
	livetest.WaitFor(t, &out, "✗ jit_train_step compiled after warm-up (compilation 2)")
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
