package frameworks

import (
	"fmt"
	"testing"

	"github.com/recomp/recomp/hlo"
)

// A graph computes no gradient when its ops carry a stack's own metadata and none is a backward
// op: TF's gradient_tape/ names and PyTorch's *_backward op types mark one; JAX's forward ops
// tell nothing (JAX 0.4 names its backward ops as its forward ones), nor do ops without metadata.
func TestInference(t *testing.T) {
	module := func(metas ...string) *hlo.Module {
		src := "HloModule m\n\nENTRY main {\n  p = f32[4]{0} parameter(0)\n"
		for i, md := range metas {
			src += fmt.Sprintf("  a%d = f32[4]{0} add(p, p), metadata={%s}\n", i, md)
		}
		src += "  ROOT r = f32[4]{0} add(p, p)\n}\n"
		m, err := hlo.Parse("m.txt", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, c := range []struct {
		name  string
		metas []string
		want  bool
	}{
		{"torch forward", []string{`op_type="aten__addmm" op_name="aten__addmm"`, `op_type="aten__tanh"`}, true},
		{"torch training", []string{`op_type="aten__addmm"`, `op_type="aten__tanh_backward" op_name="aten__tanh_backward"`}, false},
		{"tf forward", []string{`op_type="MatMul" op_name="sequential_1/dense_1/MatMul"`}, true},
		{"tf training", []string{`op_type="MatMul" op_name="sequential_1/dense_1/MatMul"`, `op_type="BiasAddGrad" op_name="gradient_tape/sequential_1/dense_1/BiasAdd/BiasAddGrad"`}, false},
		{"jax forward says nothing", []string{`op_name="jit(predict)/dot_general"`}, false},
		{"jax 0.4 training says nothing", []string{`op_name="jit(train_step)/jit(main)/transpose"`}, false},
		{"jax training", []string{`op_name="jit(step)/transpose(jvp(loss))/dot_general"`}, false},
		{"no metadata", nil, false},
	} {
		if got := Inference(module(c.metas...)); got != c.want {
			t.Errorf("%s: Inference %v, want %v", c.name, got, c.want)
		}
	}
	if Inference(nil) {
		t.Error("a nil module computes no gradient")
	}
}
