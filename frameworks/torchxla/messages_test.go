package torchxla_test

import (
	"fmt"
	"strings"
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

// torch.compile(backend="openxla"): every frame PyTorch/XLA shows is library code, so the
// graph is named after the function dynamo traces ("Step 1: torchdynamo start tracing", with
// TORCH_LOGS=dynamo), and dynamo's recompile record (TORCH_LOGS=recompiles) says why it compiles
// the function again — a recompilation even where the first compilation is not named.
func TestDynamo(t *testing.T) {
	block := "Compilation Analysis: ================================================================================\n" +
		"Compilation Analysis: Compilation Cause\nCompilation Analysis:   dynamo is compiling a FX graph to HLO\n" +
		"Compilation Analysis: Graph Info: \nCompilation Analysis:   Graph Hash: HASH\n" +
		"Compilation Analysis: Python Frame Triggered Execution: \n" +
		"Compilation Analysis:   extract_graph_helper (/v/lib/python3.11/site-packages/torch_xla/_dynamo/dynamo_bridge.py:432)\n" +
		"Compilation Analysis: --------------------------------------------------------------------------------\n" +
		"Compilation Analysis: ================================================================================\n"
	start := "I1124 07:52:58.098000 8290 torch/_dynamo/symbolic_convert.py:3842] [0/N] Step 1: torchdynamo start tracing forward /w/model.py:6\n"
	recompile := "V1124 07:52:58.331000 8290 torch/_dynamo/guards.py:4181] [0/1] [__recompiles] Recompiling function forward in /w/model.py:6\n" +
		"V1124 07:52:58.331000 8290 torch/_dynamo/guards.py:4181] [0/1] [__recompiles]     triggered by the following guard failure(s):\n" +
		"V1124 07:52:58.331000 8290 torch/_dynamo/guards.py:4181] [0/1] [__recompiles]     - 0/0: tensor 'x' size mismatch at index 1. expected 16, actual 24\n"
	for _, c := range []struct {
		name, log string
		want      []string
	}{
		{"recompiles and dynamo", strings.Replace(start, "N", "0", 1) + strings.Replace(block, "HASH", "aa", 1) + recompile +
			strings.Replace(start, "N", "1", 1) + strings.Replace(block, "HASH", "bb", 1),
			[]string{"trace model.py:6 (forward)", "compile_begin model.py:6 (forward) aa", "retrace model.py:6 (forward) tensor 'x' size mismatch at index 1. expected 16, actual 24 true",
				"trace model.py:6 (forward)", "compile_begin model.py:6 (forward) bb"}},
		// The inputs dynamo's function is given, made on the device: a graph of their own, the
		// function's frame among its frames.
		{"inputs made on the device", strings.Replace(start, "N", "0", 1) + strings.NewReplacer("HASH", "ii",
			"dynamo is compiling a FX graph to HLO", "torch_xla.sync when dynamo processing input graphs",
			"extract_graph_helper (/v/lib/python3.11/site-packages/torch_xla/_dynamo/dynamo_bridge.py:432)",
			"sync (/v/lib/python3.11/site-packages/torch_xla/torch_xla.py:87)\nCompilation Analysis:   forward (/w/model.py:6)").Replace(block) +
			strings.Replace(block, "HASH", "aa", 1),
			[]string{"trace model.py:6 (forward)", "compile_begin model.py:6 (inputs of forward) ii", "compile_begin model.py:6 (forward) aa"}},
		{"recompiles only", strings.Replace(block, "HASH", "aa", 1) + recompile + strings.Replace(block, "HASH", "bb", 1),
			[]string{"compile_begin  aa", "retrace model.py:6 (forward) tensor 'x' size mismatch at index 1. expected 16, actual 24 true",
				"compile_begin model.py:6 (forward) bb"}},
	} {
		evs, _ := scantest.Scan(t, c.log, logscan.Options{})
		var got []string
		for _, ev := range evs {
			switch ev.Kind {
			case logscan.Retrace:
				got = append(got, fmt.Sprintf("%s %s %s %v", ev.Kind, ev.Module, ev.Reason, ev.SeenBefore))
			case logscan.Trace:
				got = append(got, fmt.Sprintf("%s %s", ev.Kind, ev.Module))
			default:
				got = append(got, fmt.Sprintf("%s %s %s", ev.Kind, ev.Module, ev.Hash))
			}
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}
