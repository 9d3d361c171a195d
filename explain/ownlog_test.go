package explain

import (
	"os"
	"path/filepath"
	"testing"
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
