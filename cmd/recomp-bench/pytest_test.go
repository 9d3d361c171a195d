package main

import (
	"math"
	"testing"
)

// The median's interval is the order statistics binomial(n, 1/2) puts at most 2.5 % below and
// above: for 40 rounds the 14th and the 27th, for 6 the extremes, for 5 none.
func TestMedianInterval(t *testing.T) {
	xs := make([]float64, 40)
	for i := range xs {
		xs[len(xs)-1-i] = float64(i + 1) // given in any order
	}
	if lo, hi := medianInterval(xs); lo != 14 || hi != 27 {
		t.Errorf("40 rounds: %v, %v; want 14, 27", lo, hi)
	}
	if lo, hi := medianInterval([]float64{3, 1, 2, 6, 5, 4}); lo != 1 || hi != 6 {
		t.Errorf("6 rounds: %v, %v; want 1, 6", lo, hi)
	}
	if lo, hi := medianInterval([]float64{1, 2, 3, 4, 5}); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("5 rounds: %v, %v; want none", lo, hi)
	}
}
