package ledger

import (
	"strings"
	"testing"
)

const hostReadWhy = "most likely user code trying to access tensor value before torch_xla.sync"

// hostReadSteps is a log of n torch_xla steps, each reading the loss at train.py:12 before the
// step's sync at train.py:10; every `metricEvery` steps an accuracy is read at train.py:20.
func hostReadSteps(n, metricEvery int, executions bool) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		blocks := []struct{ hash, why, frame string }{{"fwd", hostReadWhy, "train_step (/home/u/train.py:12)"},
			{"step", "user torch_xla.sync", "train_step (/home/u/train.py:10)"}}
		if metricEvery > 0 && (i+1)%metricEvery == 0 {
			blocks = append(blocks, struct{ hash, why, frame string }{"acc", hostReadWhy, "main (/home/u/train.py:20)"})
		}
		for _, bl := range blocks {
			if !strings.Contains(b.String(), "Graph Hash: "+bl.hash+"\n") {
				b.WriteString(ptxlaAt("Compilation", bl.hash, bl.why, bl.frame))
			}
			if executions {
				b.WriteString(ptxlaAt("Execution", bl.hash, bl.why, bl.frame))
			}
		}
	}
	return b.String()
}

func TestHostReadsMidStepAreCountedPerStep(t *testing.T) {
	r := report(t, Options{}, hostReadSteps(8, 4, true))
	if r.Summary.Recompilations != 0 || len(r.HostReads) != 2 {
		t.Fatalf("summary %+v, host reads %+v", r.Summary, r.HostReads)
	}
	var every, periodic *Finding
	for i, f := range r.Findings {
		if f.Kind == FindingHostRead && strings.HasPrefix(f.Module, "train.py:12") {
			every = &r.Findings[i]
		}
		if f.Kind == FindingHostRead && strings.HasPrefix(f.Module, "train.py:20") {
			periodic = &r.Findings[i]
		}
	}
	if every == nil || every.Severity != SeverityWarning || !strings.Contains(every.Message, "every step (8 times in 8 steps)") ||
		!strings.Contains(every.Message, "user code trying to access tensor value") || every.Advice == "" {
		t.Errorf("the loss read every step: %+v", every)
	}
	if periodic == nil || periodic.Severity != SeverityInfo || !strings.Contains(periodic.Message, "2 times in 8 steps") {
		t.Errorf("the accuracy every 4 steps: %+v", periodic)
	}
	// PT_XLA_DEBUG_LEVEL=1: compilations only; the read is named, how often is not known.
	r = report(t, Options{}, hostReadSteps(8, 0, false))
	if len(r.Findings) == 0 || !strings.Contains(r.Findings[len(r.Findings)-1].Message, "the log does not show") {
		t.Errorf("without executions: %+v", r.Findings)
	}
}

// Each compilation knows the step it happened in, and the process how many steps it ran, from
// the executions at torch_xla.sync; without executions the process counts no steps.
func TestCompilationsKnowTheirStep(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 12; i++ {
		hash := []string{"w3", "w5", "w7"}[i/4]
		if i%4 == 0 {
			b.WriteString(ptxlaAt("Compilation", hash, "user torch_xla.sync", "train_step (/home/u/train.py:10)"))
		}
		b.WriteString(ptxlaAt("Execution", hash, "user torch_xla.sync", "train_step (/home/u/train.py:10)"))
	}
	r := report(t, Options{}, b.String())
	var steps []int
	for _, m := range r.Modules {
		for _, u := range m.Compiled() {
			steps = append(steps, u.Step)
		}
	}
	if len(r.Procs) != 1 || r.Procs[0].Steps != 12 || len(steps) != 3 || steps[0] != 1 || steps[1] != 5 || steps[2] != 9 {
		t.Errorf("process %+v, compiled at steps %v; want 1, 5, 9 of 12", r.Procs, steps)
	}
	if r := report(t, Options{}, hostReadSteps(4, 0, false)); r.Procs[0].Steps != 0 {
		t.Errorf("a log without executions counts %d steps", r.Procs[0].Steps)
	}
}
