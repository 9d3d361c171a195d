package torchxla_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/internal/scantest"
	"github.com/recomp/recomp/ledger"
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
		{"pt-xla-profiler: TransferFromServerTime too frequent: 11 counts during 11 steps",
			logscan.FrameworkWarning, "torch-xla", "", "", 0, "TransferFromServerTime too frequent: 11 counts during 11 steps"},
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

// PT_XLA_DEBUG's CompileTime warning (pytorch/xla#3149) is a retrace warning and the
// compilations so far, at the step it names: a metrics report's count.
func TestProfilerCompileTimeCounts(t *testing.T) {
	evs, _ := scantest.Scan(t, "pt-xla-profiler: CompileTime too frequent: 21 counts during 11 steps\n", logscan.Options{})
	if len(evs) != 2 || evs[0].Kind != logscan.Retrace || evs[1].Kind != logscan.FrameworkMetric ||
		evs[1].Detail != "CompileTime" || evs[1].Count != 21 || evs[1].Step != "11" {
		t.Errorf("got %+v", evs)
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
			ev.Reason != "most likely user code trying to access tensor value before mark_step" || ev.Graph != "inputs 35, outputs 107" {
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

// torch_xla's compile trace before PJRT (pytorch/xla#2757, XRT on a TPU v3-8, 2021): each
// device's compilation begins with "Compiling IR graph hash H on device D ..."; its "done!"
// line is not another compilation.
func TestIRGraphCompile(t *testing.T) {
	log := "2021-01-27 16:59:55.810562: I   23989 torch_xla/csrc/tensor.cpp:1153] Tensors graph hash cdd293cc662019c12881969b39da8479 on device TPU:3\n" +
		"2021-01-27 16:59:55.810791: I   23989 torch_xla/csrc/tensor.cpp:1528] Compiling IR graph hash 5f2454bc1699532ea0fdbd46aa94c6db on device TPU:3 ...\n" +
		"2021-01-27 16:59:55.816914: I   23997 torch_xla/csrc/tensor.cpp:1114] Waiting on device barrier for device TPU:4 done!\n" +
		"2021-01-27 16:59:55.841562: I   23989 torch_xla/csrc/tensor.cpp:1533] Compiling IR graph hash 5f2454bc1699532ea0fdbd46aa94c6db on device TPU:3 done!\n" +
		"2021-01-27 16:59:55.843431: I   23989 torch_xla/csrc/tensor.cpp:1535] Graph hash 5f2454bc1699532ea0fdbd46aa94c6db is computation hash 6915f8bc9540e41ef69bed09640fcaf1\n" +
		// pytorch/xla#2760: the trace's dots vary
		"2021-01-28 21:20:23.691490: I   42780 torch_xla/csrc/tensor.cpp:1554] Compiling IR graph hash a62f04e8cf52b37ceec7ac1eeba7b8be on device TPU:2 ......\n"
	evs, _ := scantest.Scan(t, log, logscan.Options{})
	var got []string
	for _, ev := range evs {
		got = append(got, fmt.Sprintf("%s %s %s %d", ev.Kind, ev.Module, ev.Hash, ev.Line))
	}
	want := []string{"compile_begin IR graph on TPU:3 5f2454bc1699532ea0fdbd46aa94c6db 2", "compile_begin IR graph on TPU:2 a62f04e8cf52b37ceec7ac1eeba7b8be 6"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// A graph is named after the program's first own frame even where the libraries are not under
// site-packages (a source checkout): pytorch/xla#7149's sample (torch_xla 2.4 dev, built from
// source) and #5723's (a test program in the checkout's test/ folder).
func TestLibraryFramesInASourceCheckout(t *testing.T) {
	for _, c := range []struct{ frames, want string }{
		{"Compilation Analysis:   mark_step (/workspaces/dk3/pytorch/xla/torch_xla/core/xla_model.py:1055)\n" +
			"Compilation Analysis:   next (/workspaces/dk3/pytorch/xla/torch_xla/distributed/parallel_loader.py:44)\n" +
			"Compilation Analysis:   __next__ (/workspaces/dk3/pytorch/xla/torch_xla/distributed/parallel_loader.py:32)\n" +
			"Compilation Analysis:   train_loop_fn (/workspaces/dk3/pytorch/xla/examples/train_decoder_only_base.py:48)\n" +
			"Compilation Analysis:   start_training (/workspaces/dk3/pytorch/xla/examples/train_decoder_only_base.py:65)\n",
			"train_decoder_only_base.py:48 (train_loop_fn)"},
		{"Compilation Analysis:   mark_step (/src/pytorch/xla/torch_xla/core/xla_model.py:818)\n" +
			"Compilation Analysis:   next (/src/pytorch/xla/torch_xla/distributed/parallel_loader.py:44)\n" +
			"Compilation Analysis:   train_loop_fn (/src/pytorch/xla/test/test_train_mp_imagenet.py:296)\n" +
			"Compilation Analysis:   __call__ (/src/pytorch/xla/torch_xla/_internal/pjrt.py:189)\n",
			"test_train_mp_imagenet.py:296 (train_loop_fn)"},
		// pytorch/xla#5958: torch from source, dynamo's generated code
		{"Compilation Analysis:   forward (<eval_with_key>.7:5)\n" +
			"Compilation Analysis:   _call_impl (/workspaces/dk2/pytorch/torch/nn/modules/module.py:1520)\n" +
			"Compilation Analysis:   fwd (/workspaces/dk2/pytorch/torch/_dynamo/backends/torchxla.py:51)\n" +
			"Compilation Analysis:   run (/home/u/proj/train.py:9)\n",
			"train.py:9 (run)"},
	} {
		log := "Compilation Analysis: ================================================================================\n" +
			"Compilation Analysis: Compilation Cause\nCompilation Analysis:   mark_step in parallel loader at step end\n" +
			"Compilation Analysis: Graph Info: \nCompilation Analysis:   Graph Hash: c74c3b91b855b2b123f833b0d5f86943\n" +
			"Compilation Analysis: Python Frame Triggered Execution: \n" + c.frames +
			"Compilation Analysis: --------------------------------------------------------------------------------\n" +
			"Compilation Analysis: ================================================================================\n"
		ev := scantest.One(t, strings.TrimSuffix(log, "\n"))
		if ev.Module != c.want {
			t.Errorf("named %q, want %q", ev.Module, c.want)
		}
	}
}

// A recompile record followed by PyTorch/XLA's Compilation Analysis is that compilation's cause,
// not a compilation of its own; with no analysis after it (inductor, or PT_XLA_DEBUG off), it is
// one. Either way the function counts as recompiled once.
func TestDynamoRecordCountedOnce(t *testing.T) {
	block := "Compilation Analysis: ================================================================================\n" +
		"Compilation Analysis: Compilation Cause\nCompilation Analysis:   dynamo is compiling a FX graph to HLO\n" +
		"Compilation Analysis: Graph Info: \nCompilation Analysis:   Graph Hash: HASH\n" +
		"Compilation Analysis: Python Frame Triggered Execution: \n" +
		"Compilation Analysis:   extract_graph_helper (/v/lib/python3.11/site-packages/torch_xla/_dynamo/dynamo_bridge.py:432)\n" +
		"Compilation Analysis: --------------------------------------------------------------------------------\n" +
		"Compilation Analysis: ================================================================================\n"
	// the record as torch 2.9 prints it (testdata/runs/torch-xla-2.9/dynamo-openxla)
	recompile := "V1124 08:45:48.196000 2391 torch/_dynamo/guards.py:4181] [0/1] [__recompiles] Recompiling function forward in /w/model.py:88\n" +
		"V1124 08:45:48.196000 2391 torch/_dynamo/guards.py:4181] [0/1] [__recompiles]     triggered by the following guard failure(s):\n" +
		"V1124 08:45:48.196000 2391 torch/_dynamo/guards.py:4181] [0/1] [__recompiles]     - 0/0: tensor 'x' size mismatch at index 1. expected 16, actual 24\n"
	for _, c := range []struct {
		name, log                string
		compilations, recompiled int
	}{
		{"openxla", strings.Replace(block, "HASH", "aa", 1) + recompile + strings.Replace(block, "HASH", "bb", 1), 2, 1},
		{"inductor", recompile, 1, 1},
		{"two records, one analysed", recompile + strings.Replace(recompile, "[0/1]", "[0/2]", -1) + strings.Replace(block, "HASH", "cc", 1), 2, 2},
	} {
		s, err := ledger.ReadLogs([]ledger.Log{{Path: "run.log", Reader: strings.NewReader(c.log)}}, ledger.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if sm := s.Ledger.Summary; sm.Compilations != c.compilations || sm.Recompilations != c.recompiled {
			t.Errorf("%s: compilations %d, recompilations %d; want %d, %d", c.name, sm.Compilations, sm.Recompilations, c.compilations, c.recompiled)
		}
	}
}
