package diff

import (
	"fmt"
	"testing"

	"github.com/recomp/recomp/hlo"
)

// A module without stack tables (JAX 0.4's) names a source line on each op but none on a
// constant: a changed constant takes its first user's line where that is a Python file of the
// program's, never a library's nor a placeholder name (TF writes dummy_file_name where it has
// no location).
func TestConstantSourceWithoutStacks(t *testing.T) {
	mod := func(lr, file string) *hlo.Module {
		src := fmt.Sprintf(`HloModule m
ENTRY e {
  w = f32[4]{0} parameter(0)
  c = f32[] constant(%s)
  b = f32[4]{0} broadcast(c), dimensions={}
  ROOT m = f32[4]{0} multiply(w, b), metadata={op_name="jit(step)/mul" source_file="%s" source_line=12}
}
`, lr, file)
		m, err := hlo.Parse("m", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	for file, want := range map[string]string{
		"/home/me/train.py": "/home/me/train.py:12",
		"/v/lib/python3.12/site-packages/optax/_src/alias.py": "",
		"dummy_file_name": "",
	} {
		r := Compare(mod("0.1", file), mod("0.05", file))
		got, found := "", false
		for _, c := range r.Changes {
			if c.Kind == KindConstant {
				got, found = c.Source, true
			}
		}
		if !found || got != want {
			t.Errorf("%s: the constant's source %q (found %v), want %q", file, got, found, want)
		}
	}
}
