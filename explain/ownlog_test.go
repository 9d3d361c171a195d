package explain

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/ledger"
)

// A run folder is one input: naming its own log with --log keeps the manifest's facts (the run's
// wall time, and so the shares of it), as explain RUN has them.
func TestRunFolderWithItsOwnLog(t *testing.T) {
	src := "../testdata/runs/jax-0.12/partial-batch"
	dir := t.TempDir()
	copyFile := func(from, to string) {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(filepath.Join(src, "run.log"), filepath.Join(dir, "run.log"))
	if err := os.Mkdir(filepath.Join(dir, "dump"), 0o755); err != nil {
		t.Fatal(err)
	}
	mods, _ := filepath.Glob(filepath.Join(src, "dump", "*"))
	for _, m := range mods {
		copyFile(m, filepath.Join(dir, "dump", filepath.Base(m)))
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"version": 1, "wall_seconds": 10}`), 0o644); err != nil {
		t.Fatal(err)
	}
	alone, err := Dump(dir, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	withLog, err := Dump(dir, []string{filepath.Join(dir, ".", "run.log")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if alone.Verdict == nil || alone.Verdict.Wall <= 0 || withLog.Verdict == nil || withLog.Verdict.Wall != alone.Verdict.Wall {
		t.Fatalf("explain RUN wall %v, explain RUN --log RUN/run.log wall %v", alone.Verdict, withLog.Verdict)
	}
	other := filepath.Join(t.TempDir(), "other.log")
	copyFile(filepath.Join(src, "run.log"), other)
	if d, err := Dump(dir, []string{other}, Options{}); err != nil || d.Verdict.Wall != 0 {
		t.Errorf("another log does not take the folder's facts: %v %v", d.Verdict, err)
	}
}

// A run folder's dump is read by scan and guard too: a PyTorch/XLA log without execution blocks
// (PT_XLA_DEBUG_LEVEL=1, as recomp run sets it) cannot show that AdamW's second graph is set-up;
// its dump can, and the default gate passes the clean program.
func TestRunFolderDumpShowsSetUp(t *testing.T) {
	src := "../testdata/runs/torch-xla-2.9/adamw-clean"
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(src, "run.log"))
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "Execution Analysis:") {
			keep = append(keep, l)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "run.log"), []byte(strings.Join(keep, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "dump"), 0o755); err != nil {
		t.Fatal(err)
	}
	mods, _ := filepath.Glob(filepath.Join(src, "dump", "*"))
	for _, m := range mods {
		data, _ := os.ReadFile(m)
		if err := os.WriteFile(filepath.Join(dir, "dump", filepath.Base(m)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	logOnly, err := Logs([]string{filepath.Join(dir, "run.log")}, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if logOnly.Ledger.Summary.AfterWarmup != 1 {
		t.Fatalf("the log alone cannot tell set-up: %+v", logOnly.Ledger.Summary)
	}
	folder, err := Logs([]string{dir}, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s := folder.Ledger.Summary; s.AfterWarmup != 0 || s.Recompilations != 0 || len(folder.Verdict.Verdicts) != 0 {
		t.Errorf("with the folder's dump: %+v, verdicts %+v", s, folder.Verdict.Verdicts)
	}
	if g := gate.EvaluateScan(&folder.Scan, gate.Options{}); !g.Passed {
		t.Errorf("guard RUN: %+v", g)
	}
	withWarmup, _ := Logs([]string{dir}, ledger.ReadOptions{Ledger: ledger.Options{Warmup: 1}})
	if withWarmup.Ledger.Summary.AfterWarmup == 0 {
		t.Error("--warmup 1 keeps its meaning")
	}
}
