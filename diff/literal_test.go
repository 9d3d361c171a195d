package diff

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/recomp/recomp/hlo"
)

// constantModule is a module whose one constant has n f32 elements; the last is bumped by
// last (two modules that differ in one element out of n).
func constantModule(n, last int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "HloModule jit_big, entry_computation_layout={(f32[%d]{0})->f32[%d]{0}}\n\nENTRY %%main.3 (Arg_0.1: f32[%d]) -> f32[%d] {\n", n, n, n, n)
	fmt.Fprintf(&b, "  %%Arg_0.1 = f32[%d]{0} parameter(0)\n  %%constant.2 = f32[%d]{0} constant({", n, n)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		x := i % 1000
		if i == n-1 {
			x += last
		}
		b.WriteString(strconv.Itoa(x))
		b.WriteString(".5")
	}
	fmt.Fprintf(&b, "})\n  ROOT %%add.3 = f32[%d]{0} add(f32[%d]{0} %%Arg_0.1, f32[%d]{0} %%constant.2)\n}\n", n, n, n)
	return []byte(b.String())
}

// TestHugeConstantSummarised: two modules whose 200 000-element constants differ in their last
// element compare without building the constants' canonical forms, and the change carries a
// summary (first elements, count, size, digest, the first difference), never the values.
func TestHugeConstantSummarised(t *testing.T) {
	const n = 200_000
	srcA, srcB := constantModule(n, 0), constantModule(n, 1)
	a, err := hlo.Parse("a", srcA)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := hlo.Parse("b", srcB)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := Compare(a, b)
	td := r.Text(TextOptions{})
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(srcA))/4 {
		t.Errorf("comparing allocated %d KB for %d KB modules: the constants were copied", alloc>>10, len(srcA)>>10)
	}
	if len(r.Changes) != 1 || r.Changes[0].Kind != KindConstant {
		t.Fatalf("changes %+v", r.Changes)
	}
	ch := r.Changes[0]
	for _, s := range []string{ch.Old, ch.New} {
		if len(s) > 300 || !strings.HasPrefix(s, "{0.5, 1.5, 2.5, 3.5, …} (200000 elements, ") {
			t.Errorf("not a summary: %.300q", s)
		}
	}
	if !strings.HasSuffix(ch.Old, "[199999] = 999.5 (1 of the elements compared differ)") || !strings.HasSuffix(ch.New, "[199999] = 1000.5") {
		t.Errorf("the first difference is not said: %q → %q", ch.Old, ch.New)
	}
	if len(r.Causes) == 0 || r.Causes[0].Kind != CauseConstant || len(r.Causes[0].Summary) > 1000 {
		t.Errorf("causes %+v", r.Causes)
	}
	if len(td.Text) > 2000 || !strings.Contains(td.Text, "-constant.2 = f32[200000]{0} constant({0.5, 1.5, 2.5, 3.5, …} (200000 elements") {
		t.Errorf("text diff %d bytes: %.500s", len(td.Text), td.Text)
	}
}

func BenchmarkCompareHugeConstant(b *testing.B) {
	srcA, srcB := constantModule(1_000_000, 0), constantModule(1_000_000, 1)
	ma, _ := hlo.Parse("a", srcA)
	mb, _ := hlo.Parse("b", srcB)
	b.SetBytes(int64(len(srcA) + len(srcB)))
	b.ReportAllocs()
	for b.Loop() {
		if r := Compare(ma, mb); len(r.Changes) != 1 {
			b.Fatal(r.Changes)
		}
	}
}
