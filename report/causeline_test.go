package report

import (
	"testing"

	"github.com/recomp/recomp/verdict"
)

// A cause line says its kind once: before a change that does not name it, never before one
// that does.
func TestCauseLineSaysItsKindOnce(t *testing.T) {
	for _, tc := range []struct {
		c    verdict.Cause
		want string
	}{
		{verdict.Cause{Kind: "static_argument", Change: "static argument `dropout` changed 0.1 → 0.0 (one compilation per value)", Count: 6},
			"static argument `dropout` changed 0.1 → 0.0 (one compilation per value), the cause of 6 recompilations"},
		{verdict.Cause{Kind: "python_value", Change: "a Python value seen at trace time (a static argument or a closed-over number) changed: 0.9 → 0.933"},
			"a Python value seen at trace time (a static argument or a closed-over number) changed: 0.9 → 0.933"},
		{verdict.Cause{Kind: "constant_value", Change: "0.9 → 0.933", Count: 2}, "constant value 0.9 → 0.933, the cause of 2 recompilations"},
		{verdict.Cause{Kind: "graph_structure", Change: "the graph's structure changed: 4 removed"}, "graph structure, the graph's structure changed: 4 removed"},
	} {
		if got := causeLine("jax", tc.c); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}
