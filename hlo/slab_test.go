package hlo

import (
	"runtime"
	"testing"
)

// TestSmallModuleParsesSmall: parsing a 700-byte module allocates in proportion to it, not the
// 130 KB of full-size slabs (a dump of 100 000 such modules allocated 13 GB to be read).
func TestSmallModuleParsesSmall(t *testing.T) {
	src := []byte(`HloModule jit_step, entry_computation_layout={(f32[32,8]{1,0}, f32[8,4]{1,0})->f32[32,4]{1,0}}

ENTRY %main.7 (x.1: f32[32,8], w.2: f32[8,4]) -> f32[32,4] {
  %x.1 = f32[32,8]{1,0} parameter(0), metadata={op_name="x"}
  %w.2 = f32[8,4]{1,0} parameter(1), metadata={op_name="w"}
  %dot.3 = f32[32,4]{1,0} dot(f32[32,8]{1,0} %x.1, f32[8,4]{1,0} %w.2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %constant.4 = f32[] constant(7)
  %broadcast.5 = f32[32,4]{1,0} broadcast(f32[] %constant.4), dimensions={}
  ROOT %multiply.6 = f32[32,4]{1,0} multiply(f32[32,4]{1,0} %dot.3, f32[32,4]{1,0} %broadcast.5)
}
`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const n = 100
	for range n {
		if _, err := Parse("m", src); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 24<<10 {
		t.Errorf("parsing a %d-byte module allocates %d KB", len(src), per>>10)
	}
}
