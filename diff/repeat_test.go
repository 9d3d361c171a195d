package diff

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/recomp/recomp/hlo"
)

// loopModule is a step that applies a block of 4 ops, from train.py:86, depth times, after an op
// of a library line used lib times; meta false leaves out the metadata.
func loopModule(t *testing.T, depth, lib int, meta bool) *hlo.Module {
	t.Helper()
	md := func(line string) string {
		if !meta {
			return ""
		}
		return fmt.Sprintf(`, metadata={op_type="aten__add" op_name="aten__add" source_file="%s" source_line=%s}`,
			strings.Split(line, ":")[0], strings.Split(line, ":")[1])
	}
	var b strings.Builder
	b.WriteString("HloModule m\nENTRY e {\n  x = f32[4,4]{1,0} parameter(0)\n")
	prev := "x"
	for i := range lib {
		fmt.Fprintf(&b, "  l%d = f32[4,4]{1,0} negate(%s)%s\n", i, prev, md("/venv/lib/python3.11/site-packages/torch/nn/functional.py:2901"))
		prev = fmt.Sprintf("l%d", i)
	}
	for i := range depth {
		for j, op := range []string{"negate", "exponential", "tanh", "sqrt"} {
			fmt.Fprintf(&b, "  b%d_%d = f32[4,4]{1,0} %s(%s)%s\n", i, j, op, prev, md("/home/u/train.py:86"))
			prev = fmt.Sprintf("b%d_%d", i, j)
		}
	}
	fmt.Fprintf(&b, "  ROOT r = f32[4,4]{1,0} add(%s, x)\n}\n", prev)
	m, err := hlo.Parse("m", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A line whose ops are whole copies of one block a different number of times is a repeat, with
// the counts; a line whose counts share only a small divisor, or that did not change, is not;
// without metadata nothing is.
func TestRepeatsOf(t *testing.T) {
	r := Compare(loopModule(t, 2, 19, true), loopModule(t, 3, 39, true))
	if len(r.Causes) == 0 || r.Causes[0].Kind != CauseGraphStructure {
		t.Fatalf("causes %+v", r.Causes)
	}
	c := r.Causes[0]
	if want := []Repeat{{Source: "/home/u/train.py:86", Ops: 4, From: 2, To: 3}}; !slices.Equal(c.Repeats, want) {
		t.Errorf("repeats %+v, want %+v (not the library's 19 → 39 ops)", c.Repeats, want)
	}
	if ev := strings.Join(c.Evidence, "\n"); !strings.Contains(ev, "the ops at /home/u/train.py:86: 8 → 12, whole copies of a block of 4 (2 → 3 times)") {
		t.Errorf("evidence:\n%s", ev)
	}
	if r := Compare(loopModule(t, 2, 3, true), loopModule(t, 2, 6, true)); len(r.Causes) == 0 || !slices.Equal(r.Causes[0].Repeats, []Repeat{{Source: "/venv/lib/python3.11/site-packages/torch/nn/functional.py:2901", Ops: 3, From: 1, To: 2}}) {
		t.Errorf("the block unchanged, the library line doubled: %+v", r.Causes)
	}
	if r := Compare(loopModule(t, 1, 5, false), loopModule(t, 3, 5, false)); len(r.Causes) == 0 || r.Causes[0].Repeats != nil {
		t.Errorf("no metadata: %+v", r.Causes)
	}
	if got := repeatsOf(nil, loopModule(t, 1, 1, true)); got != nil {
		t.Errorf("no module: %+v", got)
	}
}

// A structure change between versions whose ops carry no source lines says that the lines, and a
// loop count, cannot be told (and, for PyTorch/XLA, which setting writes them); with source lines
// it does not.
func TestUnsourcedStructure(t *testing.T) {
	r := Compare(loopModule(t, 1, 0, false), loopModule(t, 2, 0, false))
	if len(r.Causes) != 1 || !r.Causes[0].Unsourced || len(r.Causes[0].Repeats) > 0 ||
		!strings.Contains(strings.Join(r.Causes[0].Evidence, "\n"), "no source lines") ||
		!strings.Contains(strings.Join(r.Causes[0].Evidence, "\n"), "XLA_HLO_DEBUG=1") {
		t.Errorf("without source lines: %+v", r.Causes)
	}
	if r := Compare(loopModule(t, 1, 0, true), loopModule(t, 2, 0, true)); len(r.Causes) != 1 || r.Causes[0].Unsourced {
		t.Errorf("with source lines: %+v", r.Causes)
	}
}

// chainModule is n negates from /home/u/train.py:20 and 2 from a library's line.
func chainModule(t *testing.T, n int) *hlo.Module {
	t.Helper()
	var b strings.Builder
	b.WriteString("HloModule m\nENTRY e {\n  x = f32[4]{0} parameter(0)\n")
	prev := "x"
	for i := range n + 2 {
		src := `source_file="/home/u/train.py" source_line=20`
		if i >= n {
			src = `source_file="/venv/lib/python3.11/site-packages/torch/nn/functional.py" source_line=2901`
		}
		fmt.Fprintf(&b, "  n%d = f32[4]{0} negate(%s), metadata={op_name=\"aten__neg\" %s}\n", i, prev, src)
		prev = fmt.Sprintf("n%d", i)
	}
	fmt.Fprintf(&b, "  ROOT r = f32[4]{0} add(%s, x)\n}\n", prev)
	m, err := hlo.Parse("m", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A line of the program's own code whose op count changed without being whole copies of one
// block is a Growth of the structure cause (8 → 13); a repeated block is a Repeat, not a Growth.
func TestGrowthsOf(t *testing.T) {
	r := Compare(chainModule(t, 8), chainModule(t, 13))
	if len(r.Causes) != 1 || len(r.Causes[0].Repeats) != 0 ||
		!slices.Equal(r.Causes[0].Grows, []Growth{{Source: "/home/u/train.py:20", From: 8, To: 13}}) {
		t.Errorf("8 → 13 ops: %+v", r.Causes)
	}
	if r := Compare(loopModule(t, 1, 0, true), loopModule(t, 2, 0, true)); len(r.Causes) != 1 || len(r.Causes[0].Grows) != 0 {
		t.Errorf("a repeated block: %+v", r.Causes)
	}
}
