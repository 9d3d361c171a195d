package across

import (
	"testing"
)

// Diff compares runs when either side has a log, else dumps; --cache without a log is refused.
func TestDiff(t *testing.T) {
	run := "../testdata/runs/jax-0.12/partial-batch"
	r, d, err := Diff(DiffOptions{A: run, B: run})
	if err != nil || r == nil || d != nil {
		t.Fatalf("two folders with a log and a dump: runs %v, dumps %v, %v", r != nil, d != nil, err)
	}
	r, d, err = Diff(DiffOptions{A: run + "/dump", B: run + "/dump"})
	if err != nil || r != nil || d == nil || d.Differs() {
		t.Fatalf("two dumps: runs %v, dumps %v, %v", r != nil, d != nil, err)
	}
	if _, _, err := Diff(DiffOptions{A: run + "/dump", B: run + "/dump", RunsOptions: RunsOptions{Caches: []string{"c"}}}); err == nil {
		t.Error("--cache without the runs' logs was accepted")
	}
	if _, _, err := Diff(DiffOptions{A: "-", B: "-", LogA: []string{"-"}}); err == nil {
		t.Error("stdin named twice was accepted")
	}
}
