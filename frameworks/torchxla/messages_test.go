package torchxla_test

import (
	"testing"
	"time"

	"github.com/recomp/recomp/internal/scantest"
	"github.com/recomp/recomp/logscan"
)

// Lines as torch_xla 2.9 prints them.
func TestMessages(t *testing.T) {
	for _, c := range []struct {
		line     string
		kind     logscan.Kind
		producer string
		module   string
		hash     string
		dur      time.Duration
		detail   string // Detail, or Signature for a compile request
	}{
		{"pt-xla-profiler: CompileTime too frequent: 21 counts during 11 steps",
			logscan.Retrace, "torch-xla", "", "", 0, "CompileTime too frequent: 21 counts during 11 steps"},
	} {
		ev := scantest.One(t, c.line)
		text := ev.Detail
		if ev.Kind == logscan.CompileRequest {
			text = ev.Signature
		}
		if ev.Kind != c.kind || string(ev.Producer) != c.producer || ev.Module != c.module || ev.Hash != c.hash || ev.Duration != c.dur || text != c.detail {
			t.Errorf("%q:\n got %+v", c.line, ev)
		}
	}
}

const ptxlaBlock = `
Compilation Analysis: ================================================================================
Compilation Analysis: Compilation Cause
Compilation Analysis:   most likely user code trying to access tensor value before mark_step
Compilation Analysis: Graph Info: 
Compilation Analysis:   Graph Hash: c74c3b91b855b2b123f833b0d5f86943
Compilation Analysis:   Number of Graph Inputs: 35
Compilation Analysis:   Number of Graph Outputs: 107
Compilation Analysis: Python Frame Triggered logscan.Execution: 
Compilation Analysis:   train_loop (/tmp/train.py:12)
Compilation Analysis: --------------------------------------------------------------------------------
Compilation Analysis: ================================================================================
Post Compilation Analysis: Graph input size: 0.000123 GB
`

func TestPyTorchXLAAnalysis(t *testing.T) {
	evs, _ := scantest.Scan(t, ptxlaBlock+ptxlaBlock, logscan.Options{})
	if len(evs) != 2 {
		t.Fatalf("%+v", evs)
	}
	for _, ev := range evs {
		if ev.Kind != logscan.CompileBegin || ev.Producer != "torch-xla" || ev.Hash != "c74c3b91b855b2b123f833b0d5f86943" ||
			ev.Reason != "most likely user code trying to access tensor value before mark_step" {
			t.Errorf("%+v", ev)
		}
	}
	if evs[0].Line != 3 || evs[1].Line != 16 {
		t.Errorf("lines %d, %d", evs[0].Line, evs[1].Line)
	}
}
