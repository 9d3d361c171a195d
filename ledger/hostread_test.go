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
