package ledger

import (
	"fmt"
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

// A second graph that runs from step 2 on is set-up only when it takes the state the first step
// created as more inputs, with as many outputs (where the log counts them): a program that
// changed once at step 2 (a new batch size, one more output) recompiled, and a gate fails it.
func TestSettledOnlyWhenStateBecameInputs(t *testing.T) {
	withIO := func(in, out int) func(string) string {
		return func(block string) string {
			return strings.Replace(block, "Number of Graph Inputs: 3\n",
				fmt.Sprintf("Number of Graph Inputs: %d\nCompilation Analysis:   Number of Graph Outputs: %d\n", in, out), 1)
		}
	}
	log := func(a, b func(string) string) string {
		out := a(ptxla("Compilation", "a")) + ptxla("Execution", "a") + b(ptxla("Compilation", "b"))
		for i := 0; i < 4; i++ {
			out += ptxla("Execution", "b")
		}
		return out
	}
	if r := report(t, Options{}, log(withIO(17, 41), withIO(33, 41))); r.Summary.AfterWarmup != 0 || r.Summary.Recompilations != 0 {
		t.Errorf("AdamW's state as inputs (17 → 33, 41 outputs): %+v", r.Summary)
	}
	for name, l := range map[string]string{
		"same inputs (a new batch size from step 2)": log(withIO(11, 25), withIO(11, 25)),
		"fewer inputs":     log(withIO(33, 41), withIO(17, 41)),
		"more outputs too": log(withIO(17, 41), withIO(33, 57)),
	} {
		if r := report(t, Options{}, l); r.Summary.AfterWarmup != 1 || r.Summary.Recompilations != 1 {
			t.Errorf("%s: a recompilation after warm-up, got %+v", name, r.Summary)
		}
	}
}

// level1 is a PT_XLA_DEBUG_LEVEL=1 log (no executions) of one program compiled twice: its
// graphs' inputs and outputs as torch_xla prints them.
func level1(inA, outA, inB, outB int) string {
	block := func(hash string, in, out int) string {
		return strings.Replace(ptxlaAt("Compilation", hash, "user torch_xla.sync", "train_step (/home/u/train.py:10)"),
			"Number of Graph Inputs: 3\n", fmt.Sprintf("Number of Graph Inputs: %d\nCompilation Analysis:   Number of Graph Outputs: %d\n", in, out), 1)
	}
	return block("a", inA, outA) + block("b", inB, outB)
}

// A level-1 log cannot tell state the first step created from a recompilation: the second graph
// with more inputs and as many outputs is undecided, still a recompilation; anything else, or a
// log with executions, or a warm-up asked for, is decided as before.
func TestUndecidedSetUpWithoutExecutions(t *testing.T) {
	r := report(t, Options{}, level1(17, 41, 33, 41))
	u := r.Modules[0].Compiled()[1]
	if u.Undecided == "" || !strings.Contains(u.Undecided, "17 → 33") || r.Summary.Recompilations != 1 || r.Summary.AfterWarmup != 1 {
		t.Fatalf("undecided %q, summary %+v", u.Undecided, r.Summary)
	}
	for name, log := range map[string]string{
		"same inputs (a new batch size)": level1(11, 25, 11, 25),
		"fewer inputs":                   level1(33, 41, 17, 41),
		"more outputs too":               level1(17, 41, 33, 57),
		"executions listed":              level1(17, 41, 33, 41) + ptxlaAt("Execution", "b", "user torch_xla.sync", "train_step (/home/u/train.py:10)"),
	} {
		if r := report(t, Options{}, log); r.Modules[0].Compiled()[1].Undecided != "" {
			t.Errorf("%s: undecided %q", name, r.Modules[0].Compiled()[1].Undecided)
		}
	}
	if r := report(t, Options{Warmup: 1}, level1(17, 41, 33, 41)); r.Modules[0].Compiled()[1].Undecided != "" {
		t.Error("--warmup keeps its meaning")
	}
}
