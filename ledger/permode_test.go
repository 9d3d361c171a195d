package ledger

import (
	"fmt"
	"strings"
	"testing"
)

// dynamoCompiles is a TORCH_LOGS=recompiles,dynamo log of f compiled once, then again for each
// guard failure given (compile ids 0/1, 0/2, …).
func dynamoCompiles(failures ...string) string {
	var b strings.Builder
	step := func(id string) {
		fmt.Fprintf(&b, "I1202 03:30:00.000000 7000 torch/_dynamo/symbolic_convert.py:3842] [%s] Step 1: torchdynamo start tracing f /w/m.py:3\n", id)
		fmt.Fprintf(&b, "I1202 03:30:00.100000 7000 torch/_dynamo/output_graph.py:2167] [%s] Step 2: calling compiler function inductor\n", id)
		fmt.Fprintf(&b, "I1202 03:30:00.200000 7000 torch/_dynamo/output_graph.py:2172] [%s] Step 2: done compiler function inductor\n", id)
	}
	step("0/0")
	for i, f := range failures {
		id := fmt.Sprintf("0/%d", i+1)
		fmt.Fprintf(&b, "V1202 03:30:01.000000 7000 torch/_dynamo/guards.py:4181] [%s] [__recompiles] Recompiling function f in /w/m.py:3\n", id)
		fmt.Fprintf(&b, "V1202 03:30:01.000000 7000 torch/_dynamo/guards.py:4181] [%s] [__recompiles]     triggered by the following guard failure(s):\n", id)
		// a failure of each entry, the last compiled first: "0/k: " before the others' own
		for j, part := range strings.Split(f, "\n") {
			if j == 0 {
				part = fmt.Sprintf("0/%d: %s", i, part)
			}
			fmt.Fprintf(&b, "V1202 03:30:01.000000 7000 torch/_dynamo/guards.py:4181] [%s] [__recompiles]     - %s\n", id, part)
		}
		step(id)
	}
	return b.String()
}

// A program compiled once for each mode it ran in (training, evaluation under no_grad) is not
// recompiled; a mode compiled again is, and so is a compilation for another cause beside it
// (an evaluation's partial batch, whose own mode's entry failed on its size while training's
// failed on grad mode).
func TestOneCompilationPerMode(t *testing.T) {
	const grad, training, size = "GLOBAL_STATE changed: grad_mode", "L['self'].training == True", "tensor 'x' size mismatch at index 0. expected 32, actual 24"
	for _, c := range []struct {
		name     string
		failures []string
		recomp   int
	}{
		{"grad mode once", []string{grad}, 0},
		{"training flag and grad mode", []string{training, grad}, 0},
		// the first switch compiled the new mode; the second compiled it again
		{"grad mode twice", []string{grad, grad}, 1},
		// train(), eval(), then train() compiled again: the mode it first compiled in, twice
		{"training flag flipped back", []string{training, "L['self'].training == False"}, 1},
		{"a mode and a batch size", []string{grad, size}, 1},
		{"a batch size", []string{size}, 1},
		// evaluation's partial batch: its own entry (0/1) failed on the size, training's on grad
		// mode: a recompilation, for the size alone
		{"a mode, then its partial batch", []string{grad, size + "\n0/0: " + grad}, 1},
		// a third mode: every entry failed on a mode
		{"two modes, each new", []string{grad, training + "\n0/0: " + grad}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := ReadLogs([]Log{{Path: "m.log", Reader: strings.NewReader(dynamoCompiles(c.failures...))}}, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			sm := s.Ledger.Summary
			if sm.Compilations != 1+len(c.failures) || sm.Recompilations != c.recomp || sm.AfterWarmup != c.recomp {
				t.Errorf("compilations %d, recompilations %d, after warm-up %d; want %d, %d, %d", sm.Compilations, sm.Recompilations,
					sm.AfterWarmup, 1+len(c.failures), c.recomp, c.recomp)
			}
			settled := 0
			for _, m := range s.Ledger.Modules {
				for _, u := range m.Units {
					if u.Settled == PerMode {
						settled++
					}
				}
			}
			if want := len(c.failures) - c.recomp; settled != want {
				t.Errorf("%d compilations once per mode", settled)
			}
		})
	}
}
