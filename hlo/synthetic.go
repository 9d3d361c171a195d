package hlo

import (
	"bufio"
	"fmt"
	"io"
)

// Synthetic describes a generated module for benchmarks and the performance harness: a deep
// MLP-like entry computation in the long print form with metadata, the way TF and JAX dumps
// look, with Instructions instructions.
type Synthetic struct {
	Instructions int
	Batch        int     // leading dimension of the activations
	Scale        float64 // a constant baked into every layer
}

// WriteSynthetic writes the module described by s. The output is deterministic.
func WriteSynthetic(w io.Writer, s Synthetic) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	if s.Batch <= 0 {
		s.Batch = 32
	}
	b := s.Batch
	fmt.Fprintf(bw, "HloModule jit_synthetic_step.%d, entry_computation_layout={(f32[%d,256]{1,0}, f32[256,256]{1,0})->f32[%d,256]{1,0}}\n\n", s.Instructions, b, b)
	fmt.Fprintf(bw, "%%region_add (a: f32[], b: f32[]) -> f32[] {\n  %%a = f32[] parameter(0)\n  %%b = f32[] parameter(1)\n  ROOT %%add = f32[] add(f32[] %%a, f32[] %%b)\n}\n\n")
	fmt.Fprintf(bw, "ENTRY %%main.%d (x.1: f32[%d,256], w.2: f32[256,256]) -> f32[%d,256] {\n", s.Instructions, b, b)
	fmt.Fprintf(bw, "  %%x.1 = f32[%d,256]{1,0} parameter(0), metadata={op_name=\"x\"}\n", b)
	fmt.Fprintf(bw, "  %%w.2 = f32[256,256]{1,0} parameter(1), metadata={op_name=\"w\"}\n")
	prev := "x.1"
	n := 2
	for layer := 0; n < s.Instructions-1; layer++ {
		meta := fmt.Sprintf(`metadata={op_type="MatMul" op_name="jit(step)/layer_%d/dense/dot_general" source_file="/home/user/model/layers.py" source_line=%d}`, layer, 100+layer%50)
		fmt.Fprintf(bw, "  %%dot.%d = f32[%d,256]{1,0} dot(f32[%d,256]{1,0} %%%s, f32[256,256]{1,0} %%w.2), lhs_contracting_dims={1}, rhs_contracting_dims={0}, %s\n", n, b, b, prev, meta)
		fmt.Fprintf(bw, "  %%scale.%d = f32[] constant(%g), %s\n", n+1, s.Scale+float64(layer%7), meta)
		fmt.Fprintf(bw, "  %%bcast.%d = f32[%d,256]{1,0} broadcast(f32[] %%scale.%d), dimensions={}, %s\n", n+2, b, n+1, meta)
		fmt.Fprintf(bw, "  %%mul.%d = f32[%d,256]{1,0} multiply(f32[%d,256]{1,0} %%dot.%d, f32[%d,256]{1,0} %%bcast.%d), %s\n", n+3, b, b, n, b, n+2, meta)
		fmt.Fprintf(bw, "  %%tanh.%d = f32[%d,256]{1,0} tanh(f32[%d,256]{1,0} %%mul.%d), %s\n", n+4, b, b, n+3, meta)
		prev = fmt.Sprintf("tanh.%d", n+4)
		n += 5
	}
	fmt.Fprintf(bw, "  ROOT %%copy.%d = f32[%d,256]{1,0} copy(f32[%d,256]{1,0} %%%s)\n}\n", n, b, b, prev)
	return bw.Flush()
}
