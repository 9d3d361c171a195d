package torch_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/ledger"

	"github.com/recomp/recomp/internal/scantest"
	"github.com/recomp/recomp/logscan"
)

// dynamo's recompile records in each release's layout, each from a real paste; whatever the
// backend, a record no backend's compilation follows is a compilation of its own, of the
// named function, again, with the guard failure as its cause.
func TestDynamoLayouts(t *testing.T) {
	for _, c := range []struct {
		name, log string
		want      []string // compile_begin events: module, reason
	}{
		// pytorch/pytorch#99091 (torch 2.1 nightly, April 2023): the tuple form, no line
		{"2.0 tuple", "[2023-04-13 21:42:57,808] torch._dynamo.convert_frame.__recompiles: [DEBUG] ('Recompiling function step in /home/ubuntu/dynamax/dynamax/linear_gaussian_ssm/demos/kf_linreg_jax_vs_pt.py', \"triggered by the following guard failure: L['t'] == 0\")\n" +
			"[2023-04-13 21:42:57,976] torch._dynamo.convert_frame.__recompiles: [DEBUG] ('Recompiling function step in /home/ubuntu/dynamax/dynamax/linear_gaussian_ssm/demos/kf_linreg_jax_vs_pt.py', \"triggered by the following guard failure: L['t'] == 1\")\n",
			[]string{"kf_linreg_jax_vs_pt.py (step) | L['t'] == 0", "kf_linreg_jax_vs_pt.py (step) | L['t'] == 1"}},
		// pytorch/pytorch#110928: the tuple with the line and a list of failures
		{"2.1 tuple list", `[2023-10-10 02:04:37,366] torch._dynamo.convert_frame.__recompiles: [DEBUG] ('Recompiling function inner in /home/jonch/Desktop/Programming/mlsys/pytorch/torch/_dynamo/external_utils.py:15', 'triggered by the following guard failures: [\'___guarded_code.valid\']')` + "\n",
			[]string{"external_utils.py:15 (inner) | ['___guarded_code.valid']"}},
		// pytorch/pytorch#110325 (torch 2.2 dev): the logger's own layout
		{"2.2 logger", "[2023-11-06 14:54:08,549] torch._dynamo.guards.__recompiles: [DEBUG] Recompiling function forward in /data/users/williamwen/torchvision/torchvision/models/resnet.py:284\n" +
			"[2023-11-06 14:54:08,549] torch._dynamo.guards.__recompiles: [DEBUG]     triggered by the following guard failure(s):\n" +
			"[2023-11-06 14:54:08,549] torch._dynamo.guards.__recompiles: [DEBUG]     - tensor 'L['x']' size mismatch at index 0. expected 20, actual 21\n",
			[]string{"resnet.py:284 (forward) | tensor 'L['x']' size mismatch at index 0. expected 20, actual 21"}},
		// pytorch/pytorch#123784 (torch 2.3 dev): glog without the [frame/compile] id
		{"2.3 glog", "V0410 16:18:11.049000 139689102684672 torch/_dynamo/guards.py:2199] [__recompiles] Recompiling function fn in /home/dberard/local/scripts/global_recompile.py:3\n" +
			"V0410 16:18:11.049000 139689102684672 torch/_dynamo/guards.py:2199] [__recompiles]     triggered by the following guard failure(s):\n" +
			"V0410 16:18:11.049000 139689102684672 torch/_dynamo/guards.py:2199] [__recompiles]     - ___check_global_state()\n",
			[]string{"global_recompile.py:3 (fn) | ___check_global_state()"}},
		// PyTorch blog, RAG on Graviton (torch 2.5): today's layout, under a torchrun prefix
		{"2.5 glog, rank", "[rank0]:V1103 02:48:08.805986 34281 site-packages/torch/_dynamo/guards.py:2813] [0/1] [__recompiles] Recompiling function forward in site-packages/transformers/models/mpnet/modeling_mpnet.py:502\n" +
			"[rank0]:V1103 02:48:08.805986 34281 site-packages/torch/_dynamo/guards.py:2813] [0/1] [__recompiles]     triggered by the following guard failure(s):\n" +
			"[rank0]:V1103 02:48:08.805986 34281 site-packages/torch/_dynamo/guards.py:2813] [0/1] [__recompiles]     - 0/0: tensor 'L['input_ids']' size mismatch at index 0. expected 16, actual 1\n",
			[]string{"modeling_mpnet.py:502 (forward) | tensor 'L['input_ids']' size mismatch at index 0. expected 16, actual 1"}},
		// pytorch/pytorch#128090 (torch 2.4 dev): the cache limit, no recompile record
		{"cache_size_limit", "W0605 17:24:08.994000 140266518349376 torch/_dynamo/convert_frame.py:744] [4/8] torch._dynamo hit config.cache_size_limit (8)\n" +
			"W0605 17:24:08.994000 140266518349376 torch/_dynamo/convert_frame.py:744] [4/8]    function: 'forward' ([redacted]:149)\n" +
			"W0605 17:24:08.994000 140266518349376 torch/_dynamo/convert_frame.py:744] [4/8]    last reason: name 'Trunc' is not defined\n" +
			"W0605 17:24:08.994000 140266518349376 torch/_dynamo/convert_frame.py:744] [4/8] To log all recompilation reasons, use TORCH_LOGS=\"recompiles\".\n",
			[]string{"[redacted]:149 (forward) | dynamo hit config.cache_size_limit (8); last reason: name 'Trunc' is not defined"}},
		// microsoft/dion#23 (torch 2.9): recompile_limit, then the fullgraph error (one event)
		{"recompile_limit", "W0110 12:27:06.332000 158 torch/_dynamo/convert_frame.py:1551] [2/8] torch._dynamo hit config.recompile_limit (8)\n" +
			"W0110 12:27:06.332000 158 torch/_dynamo/convert_frame.py:1551] [2/8]    function: 'dion2_post_orthogonalize' (/usr/local/lib/python3.12/dist-packages/dion/dion2.py:621)\n" +
			"W0110 12:27:06.332000 158 torch/_dynamo/convert_frame.py:1551] [2/8]    last reason: 2/7: tensor 'X[0]' size mismatch at index 1. expected 640, actual 8.\n" +
			"\ntorch._dynamo.exc.FailOnRecompileLimitHit: recompile_limit reached with fullgraph=True. Excessive recompilations can degrade performance due to the compilation overhead of each recompilation.\n",
			[]string{"dion2.py:621 (dion2_post_orthogonalize) | dynamo hit config.recompile_limit (8); last reason: tensor 'X[0]' size mismatch at index 1. expected 640, actual 8."}},
		// pytorch/pytorch#167504: the fullgraph error alone (the warning not pasted)
		{"FailOnRecompileLimitHit alone", "torch._dynamo.exc.FailOnRecompileLimitHit: recompile_limit reached with fullgraph=True. Excessive recompilations can degrade performance due to the compilation overhead of each recompilation.\n",
			[]string{"torch.compile function (not named) | torch._dynamo.exc.FailOnRecompileLimitHit: recompile_limit reached with fullgraph=True. Excessive recompilations can degrade performance due to the compilation overhead of each recompilation."}},
		// a recompile record, then the cache limit of the same compile id: dynamo did not compile
		// it; the limit stands for the recompilations it implies
		{"record and limit", "V0410 16:18:11.049000 1 torch/_dynamo/guards.py:2199] [0/8] [__recompiles] Recompiling function fn in /w/a.py:3\n" +
			"W0410 16:18:11.049000 1 torch/_dynamo/convert_frame.py:744] [0/8] torch._dynamo hit config.cache_size_limit (8)\n" +
			"W0410 16:18:11.049000 1 torch/_dynamo/convert_frame.py:744] [0/8]    function: 'fn' (/w/a.py:3)\n",
			[]string{"a.py:3 (fn) | dynamo hit config.cache_size_limit (8)"}},
	} {
		evs, _ := scantest.Scan(t, c.log, logscan.Options{})
		var got []string
		for _, ev := range evs {
			if ev.Kind == logscan.CompileFinished && ev.Signal != "dynamo:recompile" && ev.Signal != "dynamo:limit" {
				t.Errorf("%s: %+v", c.name, ev)
			}
			if ev.Kind == logscan.CompileBegin {
				if !ev.SeenBefore {
					t.Errorf("%s: %+v is not a compilation seen before", c.name, ev)
				}
				got = append(got, ev.Module+" | "+ev.Reason)
			}
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// torch 2.9 with TORCH_LOGS=recompiles,dynamo (recomp run's setting) and recompile_limit 3: the
// first compilation is counted from its "Step 2" lines and timed from "start tracing" to "done
// compiler function"; each recompile record is one more; the record at the limit is none (dynamo
// did not compile), and the limit is a warning that the function runs eagerly from then on.
func TestFirstCompileAndTheLimit(t *testing.T) {
	b, err := os.ReadFile("testdata/limit-2.9.log")
	if err != nil {
		t.Fatal(err)
	}
	evs, _ := scantest.Scan(t, string(b), logscan.Options{})
	var got []string
	warned := false
	for _, ev := range evs {
		switch ev.Kind {
		case logscan.CompileBegin:
			got = append(got, fmt.Sprintf("%d %s %v", ev.Line, ev.Module, ev.SeenBefore))
		case logscan.FrameworkWarning:
			warned = strings.Contains(ev.Detail, "(config.recompile_limit = 3)") && strings.Contains(ev.Detail, "runs eagerly") &&
				ev.Module == "g.py:43 (lim)"
		}
	}
	want := []string{"1 g.py:43 (lim) false", "4 g.py:43 (lim) true", "10 g.py:43 (lim) true"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || !warned {
		t.Errorf("got %q, warned %v\nwant %q", got, warned, want)
	}
	s, err := ledger.ReadLogs([]ledger.Log{{Path: "run.log", Reader: strings.NewReader(string(b))}}, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sm := s.Ledger.Summary; sm.Compilations != 3 || sm.Recompilations != 2 || sm.CompileTime != (8+39+29)*time.Millisecond {
		t.Errorf("summary %+v", sm)
	}
}
