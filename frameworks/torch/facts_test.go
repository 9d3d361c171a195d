package torch

import (
	"testing"

	"github.com/recomp/recomp/frameworks/cause"
)

// dynamo's guard failures as torch 2.9 prints them (and 2.2's L['x'] sources), each read into the
// fact it states: the kind, the input it names and what changed.
func TestGuardFacts(t *testing.T) {
	for _, c := range []struct {
		line      string
		kind      cause.Kind
		arg, want string
	}{
		{"0/0: tensor 'x' size mismatch at index 0. expected 32, actual 24", cause.BatchSize, "x", "`x` dimension 0: 32 → 24"},
		{"tensor 'L['input_ids']' size mismatch at index 1. expected 16, actual 24", cause.InputShape, "input_ids", "`input_ids` dimension 1: 16 → 24"},
		{"0/0: tensor 'x' stride mismatch at index 0. expected 4, actual 1", cause.Layout, "x", "`x` stride 0: 4 → 1"},
		{"0/0: tensor 'x' dtype mismatch. expected Float, actual Double", cause.Dtype, "x", "`x` Float → Double"},
		{"0/0: tensor 'x' requires_grad mismatch. expected requires_grad=0", cause.GlobalState, "x", "`x` requires_grad changed"},
		{"0/0: lr == 0.1                                                # def step(x, lr): return x*lr  # g.py:10 in step", cause.PythonScalar, "lr",
			"the Python value lr changed from 0.1: dynamo had specialised the function on it"},
		{"0/0: G['G'] == 1.0                                                 # def glob(x): return x*G", cause.PythonScalar, "G",
			"the Python value G changed from 1.0: dynamo had specialised the function on it"},
		{"0/0: fn._modules['1'].training == True                        # return F.dropout(input, self.p, self.training, self.inplace)", cause.ModuleMode,
			"submodule 1", "the module's training flag changed: it had compiled in train() mode (submodule 1)"},
		{"0/0: GLOBAL_STATE changed: grad_mode ", cause.GlobalState, "", "global state changed: grad mode"},
		{"___check_global_state()", cause.GlobalState, "", "global state changed: grad mode, inference mode or another global setting"},
		{"0/0: ___check_obj_id(L['fn'], 140230312)", cause.FunctionRebuilt, "fn", "`fn` is a new object (a function, closure or module made again)"},
	} {
		fs := facts(c.line)
		if len(fs) != 1 || fs[0].Kind != c.kind || fs[0].Arg != c.arg || fs[0].Change != c.want || fs[0].Said == "" {
			t.Errorf("%q:\n got %+v\nwant %s %q %q", c.line, fs, c.kind, c.arg, c.want)
		}
	}
	// several failures (one per cached entry): the entry compiled last first; each size fact
	// carries the dimension and the sizes
	fs := facts("0/1: tensor 'x' size mismatch at index 0. expected 3, actual 4\n0/0: tensor 'x' size mismatch at index 0. expected 2, actual 4")
	if len(fs) != 2 || fs[0].Dim != "0" || fs[0].Old != "3" || fs[0].New != "4" || fs[1].Old != "2" {
		t.Errorf("%+v", fs)
	}
	// evaluation's partial batch: its own entry (0/1) failed on the size, training's (0/0) on grad
	// mode: the compilation is in evaluation's mode, for the size alone (the trace keeps no id
	// before the first entry, the log one before each)
	for _, why := range []string{"tensor 'x' size mismatch at index 0. expected 32, actual 4\n0/0: GLOBAL_STATE changed: grad_mode",
		"0/1: tensor 'x' size mismatch at index 0. expected 32, actual 4\n0/0: GLOBAL_STATE changed: grad_mode"} {
		if fs := facts(why); len(fs) != 1 || fs[0].Kind != cause.BatchSize {
			t.Errorf("%q: %+v; want the batch size alone", why, fs)
		}
	}
	// every entry failed on a mode: a third mode, each fact kept
	if fs := facts("GLOBAL_STATE changed: grad_mode\n0/0: L['self'].training == True"); len(fs) != 2 {
		t.Errorf("two modes: %+v", fs)
	}
	// one entry's failures, all of one line each (recompiles_verbose continues an entry without
	// its id): a mode and a size of the same entry are kept
	if fs := facts("0/0: GLOBAL_STATE changed: grad_mode\ntensor 'x' size mismatch at index 0. expected 32, actual 4"); len(fs) != 2 {
		t.Errorf("one entry's failures: %+v", fs)
	}
	if fs := facts("name 'Trunc' is not defined"); len(fs) != 0 {
		t.Errorf("no guard named: %+v", fs)
	}
}
