package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recomp/recomp/logscan"
)

// One srun --label log of more ranks than recomp reads a log (logscan.MaxRanks), each rank
// compiling its step once: the gate neither fails for first compilations of the ranks past the
// cap (merged into one process, they were recompilations) nor passes what it did not read: it
// is inconclusive and names the cap.
func TestGuardRanksPastTheCap(t *testing.T) {
	ranks := logscan.MaxRanks + 904
	var log strings.Builder
	for r := range ranks {
		fmt.Fprintf(&log, "%d: WARNING:jax._src.interpreters.pxla:Compiling jit(train_step) with global shapes and types (ShapedArray(float32[32,8]),). Argument mapping: (UnspecifiedValue,).\n", r)
		fmt.Fprintf(&log, "%d: WARNING:jax._src.dispatch:Finished XLA compilation of jit(train_step) in 0.500000000 sec\n", r)
	}
	p := filepath.Join(t.TempDir(), "srun.log")
	os.WriteFile(p, []byte(log.String()), 0o644)
	code, out, _ := runIn(t, "", "guard", p)
	want := fmt.Sprintf("more than %d ranks in one log (recomp reads at most %d a log)", logscan.MaxRanks, logscan.MaxRanks)
	if code != exitUsage || !strings.Contains(out, want) {
		t.Errorf("exit %d, want %d and %q in:\n%s", code, exitUsage, want, out)
	}
	code, _, stderr := runIn(t, "", "guard", "--write-baseline", filepath.Join(t.TempDir(), "base.json"), p)
	if code != exitUsage || !strings.Contains(stderr, "not writing a baseline") {
		t.Errorf("baseline: exit %d, %q", code, stderr)
	}
}

// A run folder whose probe.jsonl holds more records than recomp keeps: guard on a clean log is
// inconclusive and names the cap, never a pass on what it did not read.
func TestGuardProbeRecordsPastTheCap(t *testing.T) {
	dir := t.TempDir()
	log := "WARNING:jax._src.interpreters.pxla:Compiling jit(train_step) with global shapes and types (ShapedArray(float32[32,8]),). Argument mapping: (UnspecifiedValue,).\n" +
		"WARNING:jax._src.dispatch:Finished XLA compilation of jit(train_step) in 0.500000000 sec\n"
	os.WriteFile(filepath.Join(dir, "run.log"), []byte(log), 0o644)
	var probe strings.Builder
	for i := range 60_000 {
		fmt.Fprintf(&probe, `{"framework":"jax","event":"trace","name":"f_%d","file":"/w/train.py","line":%d,"function":"main","t":%d,"pid":7}`+"\n", i, i, i)
	}
	os.WriteFile(filepath.Join(dir, "probe.jsonl"), []byte(probe.String()), 0o644)
	code, out, _ := runIn(t, "", "guard", dir)
	if code != exitUsage || !strings.Contains(out, "probe.jsonl: more than 50000 records") {
		t.Errorf("exit %d, want %d, and the cap named in:\n%s", code, exitUsage, out)
	}
}
