package ledger

import (
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
