package across

import (
	"strings"
	"testing"

	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/logscan"
)

// Two torch.compile requests whose FX-graph keys list their parts with values: the parts that
// differ are named in the order that decides (a version before a config value before the
// graph), with their two values, the deciding one first and its remedy; a graph or inputs
// change alone is graph_differs; a hit followed by its frame's compilation is one request.
func TestTorchKeyPartsVerdict(t *testing.T) {
	unit := func(hash string, parts ...string) *ledger.Unit {
		u := &ledger.Unit{Module: "p.py:3 (f)", Family: "p.py:3 (f)", Program: "p.py:3 (f)", Producer: logscan.ProducerDynamo,
			Hash: hash, Miss: true, Compiled: true, Requested: true}
		for i := 0; i+1 < len(parts); i += 2 {
			u.KeyParts = append(u.KeyParts, ledger.KeyPart{Name: parts[i], Hash: "h" + parts[i+1], Value: parts[i+1]})
		}
		return u
	}
	side := func(us ...*ledger.Unit) *runSide { return &runSide{rep: &ledger.Report{}, units: us} }
	a := unit("fa", "gm", "5 ops", "example_inputs[0]", "float32[16, 8]", "torch_version", "2.9.0", "inductor_config[x]", "False")
	b := unit("fb", "gm", "6 ops", "example_inputs[0]", "float32[16, 8]", "torch_version", "2.10.0", "inductor_config[x]", "True")
	v := missVerdict(side(a), side(b), b, 0, nil)
	if v.Reason != MissKeyOutsideGraph || v.Component != "torch_version" || len(v.Changed) != 3 ||
		v.Changed[0] != "torch_version: 2.9.0 → 2.10.0" || v.Changed[1] != "inductor_config[x]: False → True" ||
		v.Changed[2] != "gm: 5 ops → 6 ops" || !strings.Contains(v.Summary, "its Inductor config, graph parts differ too") || strings.Contains(v.Summary, "are the same") || !strings.Contains(v.Advice, "torch version") {
		t.Errorf("version, config and graph changed: %+v", v)
	}
	c := unit("fc", "gm", "5 ops", "example_inputs[0]", "float32[24, 8]", "torch_version", "2.9.0", "inductor_config[x]", "False")
	v = missVerdict(side(a), side(c), c, 0, nil)
	if v.Reason != MissGraphDiffers || v.Component != "example_inputs[0]" || len(v.Changed) != 1 || !strings.Contains(v.Advice, "mark_dynamic") {
		t.Errorf("inputs changed: %+v", v)
	}
	d := unit("fd", "gm", "5 ops")
	v = missVerdict(side(a), side(d), d, 0, nil)
	if v.Reason != MissKeyOutsideGraph || !strings.Contains(strings.Join(v.Changed, "; "), "torch_version: 2.9.0 → (none)") {
		t.Errorf("parts only A has: %+v", v)
	}

	hit := &ledger.Unit{Module: a.Module, Family: a.Family, Program: a.Program, Producer: a.Producer, Hash: "fa", Hit: true}
	frame := &ledger.Unit{Module: a.Module, Family: a.Family, Program: a.Program, Producer: a.Producer, Compiled: true}
	if f, n := hitFrame(hit, []*ledger.Unit{frame}); f != frame || n != 1 {
		t.Error("a hit and its frame's compilation are one request")
	}
	if f, _ := hitFrame(frame, []*ledger.Unit{hit}); f != nil {
		t.Error("a compilation before a hit is not that hit's")
	}
	backward := &ledger.Unit{Module: a.Module, Family: a.Family, Program: a.Program, Producer: a.Producer, Hash: "fb", Hit: true}
	if f, n := hitFrame(hit, []*ledger.Unit{backward, frame}); f != frame || n != 2 {
		t.Error("a training step's forward and backward hits and its frame's compilation are one request")
	}
	if f, _ := hitFrame(hit, []*ledger.Unit{b, frame}); f != nil {
		t.Error("a miss between a hit and a compilation: the compilation is the miss's")
	}
	jax := &ledger.Unit{Program: "jit_f", Producer: logscan.ProducerJAX, Hit: true}
	if f, _ := hitFrame(jax, []*ledger.Unit{{Program: "jit_f", Producer: logscan.ProducerJAX, Compiled: true}}); f != nil {
		t.Error("a JAX hit serves the whole executable: the compilation after it is another request")
	}
}
