package ledger

import (
	"strings"
	"testing"
)

// ptxla is one of PyTorch/XLA's analysis blocks (kind "Compilation" or "Execution") of a graph
// triggered at /home/u/train.py:10 (train_step).
func ptxla(kind, hash string) string {
	return ptxlaAt(kind, hash, "user torch_xla.sync", "train_step (/home/u/train.py:10)")
}

// ptxlaAt is an analysis block with its cause and the program's frame.
func ptxlaAt(kind, hash, why, frame string) string {
	cause := kind + " Cause"
	lines := []string{"================================================================================", cause,
		"  " + why, "Graph Info: ", "  Graph Hash: " + hash, "  Number of Graph Inputs: 3",
		"Python Frame Triggered Execution: ", "  " + frame, "  main (/home/u/train.py:30)",
		"--------------------------------------------------------------------------------",
		"================================================================================"}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(kind + " Analysis: " + l + "\n")
	}
	return b.String()
}

// steps is a log of torch_xla steps: each hash compiled the first time it is met, and run.
func steps(hashes ...string) string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, h := range hashes {
		if !seen[h] {
			b.WriteString(ptxla("Compilation", h))
			seen[h] = true
		}
		b.WriteString(ptxla("Execution", h))
	}
	return b.String()
}

func TestStateBuiltInTheFirstStepIsSetUp(t *testing.T) {
	// AdamW's first step builds its state inside the graph (hash a); from step 2 on the step
	// runs graph b only: set-up, not a recompilation, and the default warm-up passes it.
	r := report(t, Options{}, steps("a", "b", "b", "b", "b"))
	s := r.Summary
	if s.Compilations != 2 || s.Recompilations != 0 || s.AfterWarmup != 0 || len(r.Late) != 0 {
		t.Fatalf("summary %+v, late %v", s, r.Late)
	}
	m := r.Modules[0]
	if m.Recompiled || len(m.Units) != 2 || m.Units[1].Settled == "" {
		t.Errorf("module %+v", m)
	}
}

func TestSettledOnlyWhenTheFirstGraphNeverRunsAgain(t *testing.T) {
	for name, log := range map[string]string{
		"first graph runs again": steps("a", "b", "b", "a", "b"),
		"second graph ran once":  steps("a", "a", "a", "b"),
		"too few runs to tell":   steps("a", "b", "b"),
		"a third graph":          steps("a", "b", "b", "b", "c", "c", "c"),
		"first graph ran twice":  steps("a", "a", "b", "b", "b"),
	} {
		r := report(t, Options{}, log)
		if r.Summary.AfterWarmup == 0 || r.Summary.Recompilations == 0 {
			t.Errorf("%s: a recompilation after warm-up, got %+v", name, r.Summary)
		}
	}
	// --warmup N and a baseline keep their own meaning.
	if r := report(t, Options{Warmup: 1}, steps("a", "b", "b", "b", "b")); r.Summary.AfterWarmup != 1 {
		t.Errorf("--warmup 1: %+v", r.Summary)
	}
}
