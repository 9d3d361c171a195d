package diff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/recomp/recomp/hlo"
)

// lossOver is a loss that loops over n objects in Python: each object's term is gathered from
// the log-probabilities with an s32 index (one block of ops per object), the terms are stacked
// and averaged: the mean's divisor, an s32 constant n, follows the loop count.
func lossOver(t *testing.T, n int) *hlo.Module {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "HloModule m\nENTRY e {\n  logp = f32[8,4]{1,0} parameter(0)\n")
	var terms []string
	for k := 0; k < n; k++ {
		fmt.Fprintf(&b, "  i%[1]d = s32[] constant(1%[1]d), metadata={op_type=\"xla__select\" op_name=\"xla__select\" source_file=\"/u/loss.py\" source_line=7}\n", k)
		fmt.Fprintf(&b, "  r%[1]d = f32[1,4]{1,0} dynamic-slice(logp, i%[1]d, i%[1]d), dynamic_slice_sizes={1,4}, metadata={op_type=\"xla__select\" op_name=\"xla__select\" source_file=\"/u/loss.py\" source_line=7}\n", k)
		fmt.Fprintf(&b, "  t%[1]d = f32[1,4]{1,0} negate(r%[1]d), metadata={op_type=\"aten__neg\" op_name=\"aten__neg\" source_file=\"/u/loss.py\" source_line=7}\n", k)
		terms = append(terms, fmt.Sprintf("t%d", k))
	}
	fmt.Fprintf(&b, "  st = f32[%d,4]{1,0} concatenate(%s), dimensions={0}, metadata={op_type=\"aten__stack\" op_name=\"aten__stack\" source_file=\"/u/loss.py\" source_line=8}\n", n, strings.Join(terms, ", "))
	fmt.Fprintf(&b, "  z = f32[] constant(0), metadata={op_type=\"aten__mean\" op_name=\"aten__mean\" source_file=\"/u/loss.py\" source_line=8}\n")
	fmt.Fprintf(&b, "  s = f32[4]{0} reduce(st, z), dimensions={0}, to_apply=add, metadata={op_type=\"aten__mean\" op_name=\"aten__mean\" source_file=\"/u/loss.py\" source_line=8}\n")
	fmt.Fprintf(&b, "  cnt = s32[] constant(%d), metadata={op_type=\"aten__mean\" op_name=\"aten__mean\" source_file=\"/u/loss.py\" source_line=8}\n", n)
	fmt.Fprintf(&b, "  cf = f32[] convert(cnt), metadata={op_type=\"aten__mean\" op_name=\"aten__mean\" source_file=\"/u/loss.py\" source_line=8}\n")
	fmt.Fprintf(&b, "  cb = f32[4]{0} broadcast(cf), dimensions={}\n")
	fmt.Fprintf(&b, "  ROOT out = f32[4]{0} divide(s, cb)\n}\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n")
	m, err := hlo.Parse("m", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestConsequencesFollowTheStructure: a loop over the batch's objects ran 2, then 3 times. The
// new ops bring new constants, and the mean's divisor follows the count: the structure is the
// cause, and the constant that follows it is evidence under it, never a cause before it.
func TestConsequencesFollowTheStructure(t *testing.T) {
	r := Compare(lossOver(t, 2), lossOver(t, 3))
	if got := causeKinds(r.Causes); got != "[graph_structure]" {
		for _, c := range r.Causes {
			t.Logf("%s: %s", c.Kind, c.Summary)
		}
		t.Fatalf("causes %s, want the structure alone", got)
	}
	if ev := strings.Join(r.Causes[0].Evidence, "\n"); !strings.Contains(ev, "follows the new ops") || !strings.Contains(ev, "2 → 3") {
		t.Errorf("the divisor is not under the structure: %s", ev)
	}
}

// TestListBakedIn: a Python list baked into the graph as a constant of a new length ([3, 1] →
// [4, 1, 5]): the sizes inside the graph follow the constant, which is the cause; no size is
// said to be fixed inside the graph.
func TestListBakedIn(t *testing.T) {
	mod := func(ids string, n int) *hlo.Module {
		src := fmt.Sprintf(`HloModule m
ENTRY e {
  table = f32[16,4]{1,0} parameter(0)
  ids = s32[%[2]d]{0} constant(%[1]s)
  rows = f32[%[2]d,4]{1,0} gather(table, ids), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}
  z = f32[] constant(0)
  ROOT s = f32[4]{0} reduce(rows, z), dimensions={0}, to_apply=add
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
`, ids, n)
		m, err := hlo.Parse("m", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	r := Compare(mod("{3, 1}", 2), mod("{4, 1, 5}", 3))
	if got := causeKinds(r.Causes); got != "[constant_value]" {
		for _, c := range r.Causes {
			t.Logf("%s: %s", c.Kind, c.Summary)
		}
		t.Errorf("causes %s, want the list's constant alone", got)
	} else if r.Causes[0].Short != "{3, 1} → {4, 1, 5}" {
		t.Errorf("the list's values in a few words: %q", r.Causes[0].Short)
	}
}
