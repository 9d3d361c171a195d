package gate

import "testing"

// An inconclusive gate is Inconclusive whatever Passed says; a failed one Found.
func TestOutcome(t *testing.T) {
	for _, c := range []struct {
		g    Result
		want Outcome
	}{
		{Result{Passed: true}, Clean},
		{Result{}, Found},
		{Result{Inconclusive: true}, Inconclusive},
		{Result{Inconclusive: true, Passed: true}, Inconclusive},
	} {
		if got := c.g.Outcome(); got != c.want {
			t.Errorf("%+v: %v, want %v", c.g, got, c.want)
		}
	}
}
