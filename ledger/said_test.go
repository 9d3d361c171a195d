package ledger

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestSaidClosestKey: JAX's explanation by its closest earlier cache key is quoted as that, and
// with the static arguments the probe saw change, which JAX leaves out of the comparison; any
// other explanation is quoted plainly.
func TestSaidClosestKey(t *testing.T) {
	const closest = "for train_step defined at t.py:9\nall previously seen cache keys differ. For the closest previous key:\n" +
		"different input types:\n* at x, now f32[104,16] and before f32[128,16]"
	static := StaticSeen([]*Unit{
		{Static: []StaticArg{{"dropout", "0.1"}, {"mode", "'train'"}}},
		{Static: []StaticArg{{"dropout", "0.07500000000000001"}, {"mode", "'train'"}}},
		{Static: []StaticArg{{"dropout", "0.1"}, {"mode", "'train'"}}},
	})
	if len(static) != 1 || static[0] != "`dropout` 0.1 → 0.075" {
		t.Fatalf("StaticSeen = %q, want only dropout, which changed", static)
	}
	for _, c := range []struct {
		why    string
		static []string
		want   string
	}{
		{closest, static, "jax said, of its closest earlier cache key (it compares no static argument values; the probe saw static `dropout` 0.1 → 0.075): different input types: * at x"},
		{closest, nil, "jax said, of its closest earlier cache key: different input types: * at x"},
		{"never seen function:\ntrain_step id=1 defined at t.py:9", static, "jax said: never seen function:"},
	} {
		if got := Said("jax", c.why, c.static); !strings.HasPrefix(got, c.want) {
			t.Errorf("Said(%q) = %q, want %q…", c.why, got, c.want)
		}
	}
	var many []*Unit
	for _, v := range []string{"1", "2", "3", "4", "5", "6", "7", "8"} {
		many = append(many, &Unit{Static: []StaticArg{{"step", v}}})
	}
	if got := StaticSeen(many); len(got) != 1 || got[0] != "`step` 1 → 2 → 3 → … → 8" {
		t.Errorf("StaticSeen of 8 values = %q", got)
	}
}

// TestLambdasArePrograms: two lambdas jitted under one module name (Keras on JAX with flax nnx
// jits its train and test steps as lambdas: jit__lambda) are two programs, told apart by where
// JAX says each is defined; each compiled again is a recompilation of its own.
func TestLambdasArePrograms(t *testing.T) {
	trace := func(line, before string) string {
		if before == "" {
			return "TRACING CACHE MISS at /v/flax/nnx/transforms/compilation.py:1023:49 (JitWrapped.__call__):\n  never seen function:\n" +
				"    <lambda> id=1" + line + " defined at /v/keras/src/backend/jax/trainer.py:" + line + "\n"
		}
		return "TRACING CACHE MISS at /v/flax/nnx/transforms/compilation.py:1023:49 (JitWrapped.__call__):\n" +
			"  for <lambda> defined at /v/keras/src/backend/jax/trainer.py:" + line + "\n" +
			"  all previously seen cache keys differ. For the closest previous key:\n  different input types:\n" +
			"  * at data[0], now f32[" + before + ",6] and before f32[32,6]\n"
	}
	compile := func(rows string) string {
		return "Compiling jit(<lambda>) with global shapes and types (ShapedArray(float32[" + rows + ",6]),). Argument mapping: (UnspecifiedValue,).\n" +
			"Finished XLA compilation of jit(<lambda>) in 0.5 sec\n"
	}
	log := trace("270", "") + compile("32") + trace("270", "4") + compile("4") + trace("306", "") + compile("32") + trace("306", "8") + compile("8")
	rep := read(t, ReadOptions{}, Log{Path: "run.log", Reader: strings.NewReader(log)})
	var got []string
	for _, m := range rep.Modules {
		got = append(got, fmt.Sprintf("%s %d/%d", m.Family, m.Compilations, m.Recompilations))
	}
	if want := []string{"jit__lambda [trainer.py:270] 2/1", "jit__lambda [trainer.py:306] 2/1"}; !slices.Equal(got, want) {
		t.Errorf("programs %q, want %q", got, want)
	}
}
