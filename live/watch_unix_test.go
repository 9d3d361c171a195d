//go:build unix

package live

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/internal/follow"
	"github.com/recomp/recomp/internal/livetest"
	"github.com/recomp/recomp/logscan"
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

func startWatch(t *testing.T, paths []string, policy StopPolicy) (*livetest.Buffer, context.CancelFunc, chan WatchEnd) {
	t.Helper()
	fl, err := follow.New(paths)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fl.Close)
	var out, warn livetest.Buffer
	w := NewWatcher(fl, WatchOptions{Out: &out, Warn: &warn, Stop: policy})
	w.every = 0 // every compilation after warm-up is said
	w.Poll()    // what the logs hold when it starts, read before the test goes on
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan WatchEnd, 1)
	go func() { done <- w.Run(ctx, 5*time.Millisecond) }()
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
	livetest.AppendLog(t, log, jaxCompile("32", ""))
	out, cancel, done := startWatch(t, []string{log}, StopPolicy{})
	livetest.AppendLog(t, log, "step\nstep\n")
	if err := os.Rename(log, log+".1"); err != nil {
		t.Fatal(err)
	}
	livetest.AppendLog(t, log, jaxCompile("24", "32"))
	livetest.WaitFor(t, out, "recomp watch: "+log+": ✗ jit_train_step compiled after warm-up (compilation 2): batch size, x: f32[32,8] → f32[24,8], at train.py:64 (main), 0.50 s compiling\n")
	if err := os.Truncate(log, 0); err != nil {
		t.Fatal(err)
	}
	livetest.AppendLog(t, log, "restarted\n"+jaxCompile("16", "24"))
	livetest.WaitFor(t, out, "(compilation 3): batch size, x: f32[24,8] → f32[16,8]")
	cancel()
	if end := <-done; end != Interrupted {
		t.Fatal(end)
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
	out, _, done := startWatch(t, []string{dir}, StopPolicy{Count: 1})
	livetest.AppendLog(t, filepath.Join(dir, "worker-1.log"), jaxCompile("32", ""))
	livetest.AppendLog(t, filepath.Join(dir, "worker-1.log"), jaxCompile("24", "32"))
	var end WatchEnd
	select {
	case end = <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("recomp watch did not fail; it said:\n%s", out.String())
	}
	if end != Failed {
		t.Errorf("ended %v, want Failed", end)
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
	var out, warn livetest.Buffer
	w := NewWatcher(fl, WatchOptions{Out: &out, Warn: &warn})
	w.every = 0 // every compilation after warm-up is said
	for range 3 {
		w.Poll()
	}
	if n := strings.Count(warn.String(), "no such file"); n != 1 {
		t.Errorf("said %d times:\n%s", n, warn.String())
	}
}

// A folder of more logs than recomp watch follows (follow.MaxFiles): the last one recompiles,
// unread. Ctrl-C's summary is no all-clear: it names the cap and the files left out, and
// recomp watch exits 2 (inconclusive), not 0.
func TestWatchTooManyLogsIsInconclusive(t *testing.T) {
	dir := t.TempDir()
	n := follow.MaxFiles + 44
	for i := range n {
		s := jaxCompile("32", "")
		if i == n-1 {
			s += jaxCompile("24", "32")
		}
		livetest.AppendLog(t, filepath.Join(dir, fmt.Sprintf("rank-%04d.log", i)), s)
	}
	out, cancel, done := startWatch(t, []string{dir}, StopPolicy{Count: 1})
	livetest.WaitFor(t, out, "") // the first poll was done by startWatch
	cancel()
	if end := <-done; end != Inconclusive {
		t.Errorf("ended %v, want Inconclusive; it said:\n%s", end, out.String())
	}
	want := fmt.Sprintf("recomp watch: inconclusive: 44 file(s) in the folders were not followed (recomp watch follows at most %d files): their compilations are not counted\n", follow.MaxFiles)
	if !strings.Contains(out.String(), want) {
		t.Errorf("no %q in:\n%s", want, out.String())
	}
}

// Logs found once maxWatchedLogs logs were followed (a folder whose files take new names as
// they rotate) are not accounted: the summary says how much went unread, inconclusive.
func TestWatchLogsPastTheCapAreSaid(t *testing.T) {
	dir := t.TempDir()
	livetest.AppendLog(t, filepath.Join(dir, "late.log"), jaxCompile("32", "")+jaxCompile("24", "32"))
	fl, err := follow.New([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	var out, warn livetest.Buffer
	w := NewWatcher(fl, WatchOptions{Out: &out, Warn: &warn, Stop: StopPolicy{Count: 1}})
	w.every = 0 // every compilation after warm-up is said
	for i := range maxWatchedLogs {
		w.logs[fmt.Sprintf("gone-%d.log", i)] = nil // followed before, their files gone since
	}
	w.Poll()
	if !w.Summary() || !strings.Contains(out.String(), fmt.Sprintf("of logs found after the first %d were not read", maxWatchedLogs)) {
		t.Errorf("it said:\n%s", out.String())
	}
}

// A followed log of more ranks than recomp reads a log (logscan.MaxRanks): the summary names
// the cap, inconclusive, and the ranks past it add no compilation after warm-up.
func TestWatchRanksPastTheCap(t *testing.T) {
	p := filepath.Join(t.TempDir(), "srun.log")
	var log strings.Builder
	for r := range logscan.MaxRanks + 10 {
		fmt.Fprintf(&log, "%d: WARNING:jax._src.interpreters.pxla:Compiling jit(train_step) with global shapes and types (ShapedArray(float32[32,8]),). Argument mapping: (UnspecifiedValue,).\n", r)
	}
	livetest.AppendLog(t, p, log.String())
	out, cancel, done := startWatch(t, []string{p}, StopPolicy{Count: 1})
	cancel()
	end := <-done
	if end != Inconclusive || !strings.Contains(out.String(), "inconclusive: "+p+": more than 4096 ranks in one log") ||
		!strings.Contains(out.String(), "; 0 after warm-up") {
		t.Errorf("ended %v; it said:\n%s", end, out.String())
	}
}

// More distinct warnings than recomp watch says (maxWarnings: binaries landing in a folder, say)
// are counted, and the summary says how many it did not say.
func TestWatchWarningsPastTheCapAreCounted(t *testing.T) {
	dir := t.TempDir()
	for i := range maxWarnings + 3 {
		livetest.AppendLog(t, filepath.Join(dir, fmt.Sprintf("core.%d", i)), "\x7fELF\x02\x01\x01\x00")
	}
	fl, err := follow.New([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	var out, warn livetest.Buffer
	w := NewWatcher(fl, WatchOptions{Out: &out, Warn: &warn})
	w.every = 0 // every compilation after warm-up is said
	w.Poll()
	w.Summary()
	if n := strings.Count(warn.String(), "skipped: binary data"); n != maxWarnings || !strings.Contains(out.String(), "recomp watch: 3 more warning(s) not said\n") {
		t.Errorf("%d warnings said; summary:\n%s", n, out.String())
	}
}

// A core file landing in a followed folder, strings of a recompiling program inside it: no live
// line, no failure, a warning that it was skipped.
func TestWatchSkipsACoreFile(t *testing.T) {
	dir := t.TempDir()
	livetest.AppendLog(t, filepath.Join(dir, "rank0.log"), jaxCompile("32", ""))
	fl, err := follow.New([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	var out, warn livetest.Buffer
	w := NewWatcher(fl, WatchOptions{Out: &out, Warn: &warn, Stop: StopPolicy{Count: 1}})
	w.every = 0 // every compilation after warm-up is said
	w.Poll()
	livetest.AppendLog(t, filepath.Join(dir, "core.4242"), "\x7fELF\x02\x01\x01\x00\x00"+jaxCompile("32", "")+jaxCompile("24", "32"))
	w.Poll()
	if w.tally.stop != "" || strings.Contains(out.String(), "compiled after warm-up") ||
		!strings.Contains(warn.String(), "core.4242: skipped: binary data (an ELF executable, library or core file), not a log") {
		t.Errorf("stop %q; it said:\n%s\nwarnings:\n%s", w.tally.stop, out.String(), warn.String())
	}
}
