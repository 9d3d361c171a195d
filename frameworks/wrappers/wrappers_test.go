package wrappers_test

import (
	"strings"
	"testing"

	"github.com/recomp/recomp/internal/scantest"
	"github.com/recomp/recomp/logscan"
)

// compilations lists the compilations a log's events make, as "module [signature] duration".
func compilations(t *testing.T, log string) (string, logscan.Stats) {
	t.Helper()
	evs, st := scantest.Scan(t, log, logscan.Options{})
	var out []string
	for _, ev := range evs {
		switch ev.Kind {
		case logscan.CompileBegin:
			out = append(out, ev.Module+" ["+ev.Signature+"]")
		case logscan.CompileFinished:
			if ev.Duration > 0 {
				out[len(out)-1] += " " + ev.Duration.String()
			}
		default:
			t.Errorf("unexpected %+v", ev)
		}
	}
	return strings.Join(out, ", "), st
}

func TestPrecompileLoops(t *testing.T) {
	for _, c := range []struct{ name, log, want string }{
		// vllm-project/vllm#15727 (V1 on TPU, March 2025).
		{"vLLM V1", "INFO 03-31 07:47:51 [tpu_model_runner.py:769] Compiling the model with different input shapes.\n" +
			"INFO 03-31 07:47:51 [tpu_model_runner.py:773]   -- num_tokens: 16\n" +
			"INFO 03-31 07:48:16 [tpu_model_runner.py:773]   -- num_tokens: 32\n" +
			"INFO 03-31 07:48:22 [tpu_model_runner.py:773]   -- num_tokens: 64\n" +
			"INFO 03-31 07:48:29 [tpu_model_runner.py:773]   -- num_tokens: 128\n" +
			"INFO 03-31 07:48:36 [tpu_model_runner.py:778] Compilation finished in in 44.09 [secs].\n" +
			"INFO 03-31 07:48:36 [tpu_model_runner.py:780] Compiling sampling with different input shapes.\n" +
			"INFO 03-31 07:48:36 [tpu_model_runner.py:803]   -- num_tokens: 16, num_seqs: 8\n",
			"vllm model [num_tokens: 16], vllm model [num_tokens: 32], vllm model [num_tokens: 64], vllm model [num_tokens: 128] 44.09s, " +
				"vllm sampling [num_tokens: 16, num_seqs: 8]"},
		// vllm-project/vllm#11132 (V0 on TPU under Ray, December 2024), and V0's decode loop.
		{"vLLM V0", "INFO 12-12 11:19:10 tpu_model_runner.py:274] Compiling the model with different input shapes...\n" +
			"DEBUG 12-12 11:19:18 client.py:186] Waiting for output from MQLLMEngine.\n" +
			"INFO 12-12 11:21:06 tpu_model_runner.py:284] batch_size: 1, seq_len: 16\n" +
			"INFO 12-12 11:21:09 tpu_model_runner.py:284] batch_size: 1, seq_len: 32\n" +
			"INFO 12-12 11:21:10 tpu_model_runner.py:291] Compilation for prefill done in 120.5 s.\n" +
			"INFO 12-12 11:21:15 tpu_model_runner.py:300] batch_size: 8, seq_len: 1\n" +
			"INFO 12-12 11:21:16 tpu_model_runner.py:306] Compilation for decode done in 6.1 s.\n" +
			"batch_size: 8, seq_len: 1\n", // after the loops: the program's own words
			"vllm model [batch_size: 1, seq_len: 16], vllm model [batch_size: 1, seq_len: 32], vllm decode [batch_size: 8, seq_len: 1]"},
		// vllm-project/tpu-inference#1729 (JAX, February 2026): each program with its own time.
		{"tpu-inference", "(EngineCore_DP0 pid=118047) INFO 02-14 05:35:58 [compilation_manager.py:75] Precompile worker0 sample --> {'num_reqs': 16, 'do_sampling': True}\n" +
			"(EngineCore_DP0 pid=118047) INFO 02-14 05:35:58 [compilation_manager.py:81] Compilation finished in 0.08 [secs].\n" +
			"(EngineCore_DP0 pid=118047) INFO 02-14 05:35:58 [compilation_manager.py:75] Precompile worker0 sample --> {'num_reqs': 16, 'do_sampling': False}\n" +
			"(EngineCore_DP0 pid=118047) INFO 02-14 05:35:58 [compilation_manager.py:81] Compilation finished in 0.11 [secs].\n",
			"vllm worker0 sample [{'num_reqs': 16, 'do_sampling': True}] 80ms, vllm worker0 sample [{'num_reqs': 16, 'do_sampling': False}] 110ms"},
		// The same in a layout that does not name the file: the programs are counted, not named.
		{"tpu-inference, bare", "Precompile worker0 sample --> {'num_reqs': 16}\nCompilation finished in 0.08 [secs].\nCompilation finished in 0.11 [secs].\n",
			"vllm precompiled program [#1] 80ms, vllm precompiled program [#2] 110ms"},
		// fairseq/trainer.py's notice, as its format string prints it on rank 3.
		{"fairseq", "2021-05-04 10:00:01 | WARNING | fairseq.trainer | XLA compilation detected on device #3; too many of these can lead to slow training, but we expect a few in the beginning\n",
			" []"},
	} {
		got, st := compilations(t, c.log)
		if got != c.want || st.Unread != 0 {
			t.Errorf("%s:\n got %s (unread %+v)\nwant %s", c.name, got, st.UnreadLines, c.want)
		}
	}
}

// vLLM's torch.compile backend and JetStream's prefill warm-up, in lines from public threads
// (vllm-project/vllm#26379, vllm-ascend#9744, vllm-musa#69; JetStream's aot_utils.py wording, its
// line printed again by a second logger): a compilation per shape with its time, a load from the
// compile cache as a hit, a stored piecewise graph as a write, each prefill length once.
func TestServingEngineLines(t *testing.T) {
	log := "(EngineCore_DP0 pid=3419510) INFO 10-07 16:12:15 [compilation/backends.py:548] Using cache directory: /h/.cache/vllm/torch_compile_cache/597cba1e1f/rank_0_0/backbone for vLLM's torch.compile\n" +
		"(EngineCore_DP0 pid=3419510) INFO 10-07 16:12:15 [compilation/backends.py:559] Dynamo bytecode transform time: 5.80 s\n" +
		"(EngineCore_DP0 pid=3419510) INFO 10-07 16:12:18 [compilation/backends.py:197] Cache the graph for dynamic shape for later use\n" +
		"(EngineCore_DP0 pid=3419510) DEBUG 10-07 16:12:18 [compilation/backends.py:203] Store the 0-th graph for dynamic shape from inductor_standalone via handle ('artifact_shape_None_subgraph_0', '/h/a0')\n" +
		"(EngineCore_DP0 pid=3419510) INFO 10-07 16:12:25 [compilation/backends.py:215] Compiling a graph for dynamic shape takes 9.12 s\n" +
		"(EngineCore pid=860220) INFO 06-01 07:14:59 [backends.py:393] Compiling a graph for compile range (1, 8192) takes 11.15 s\n" +
		"(EngineCore pid=853067) INFO 06-01 07:05:56 [backends.py:292] Directly load the compiled graph(s) for compile range (1, 8192) from the cache, took 0.126 s\n" +
		"DEBUG 08-06 10:17:27 [backends.py:125] Directly load the 16-th graph for dynamic shape from inductor via handle ('fvbv', '/r/c.py')\n" +
		"I0102 10:00:00.000000 1 aot_utils.py:70] ---------Prefill engine 0 compiled for prefill length 64.---------\n" +
		"---------Prefill engine 0 compiled for prefill length 64.---------\n" +
		"I0102 10:00:01.000000 1 aot_utils.py:70] ---------Prefill engine 0 compiled for prefill length 128.---------\n"
	evs, st := scantest.Scan(t, log, logscan.Options{})
	var got []string
	for _, ev := range evs {
		got = append(got, string(ev.Kind)+" "+ev.Module+" ["+ev.Signature+"] "+ev.Duration.String())
	}
	want := []string{
		"cache_write vllm compiled graph [dynamic shape] 0s",
		"compile_begin vllm compiled graph [dynamic shape] 0s", "compile_finished vllm compiled graph [] 9.12s",
		"compile_begin vllm compiled graph [compile range (1, 8192)] 0s", "compile_finished vllm compiled graph [] 11.15s",
		"cache_hit vllm compiled graph [compile range (1, 8192)] 126ms",
		"compile_begin jetstream prefill engine 0 [prefill length 64] 0s",
		"compile_begin jetstream prefill engine 0 [prefill length 128] 0s",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || st.Unread != 0 {
		t.Errorf("got %q (unread %d)\nwant %q", got, st.Unread, want)
	}
}
