package report

import (
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/verdict"
)

// The cadence says "every epoch" with the cost of an epoch where epochs are known, "every N
// steps" where they are not, and names the epoch of a once-paid run of compilations.
func TestRecurrenceByEpoch(t *testing.T) {
	v := verdict.Verdict{Compilations: 3, Time: 3 * time.Second, Variants: 3}
	for _, c := range []struct {
		cad  verdict.Cadence
		want string
	}{
		{verdict.Cadence{Steps: []int{1, 5, 9}, Of: 12, Every: 4, Epochs: []int{1, 2, 3}, EpochsOf: 3, EveryEpoch: 1},
			"; recurs every epoch (compiled in epochs 1–3 of 3, at steps 1, 5, 9 of 12): ≈ 1.0s an epoch"},
		{verdict.Cadence{Steps: []int{5, 9}, Of: 12, Epochs: []int{2, 3}, EpochsOf: 3, EveryEpoch: 1},
			"; recurs every epoch (compiled in epochs 2 and 3 of 3, at steps 5, 9 of 12): ≈ 1.0s an epoch"},
		{verdict.Cadence{Steps: []int{1, 2, 3, 7, 12}, Of: 15, Epochs: []int{1, 1, 1, 2, 3}, EpochsOf: 3, EveryEpoch: 1, EpochFrom: 2, EpochCost: 2100 * time.Millisecond},
			"; recurs every epoch from epoch 2 (compiled in epochs 1–3 of 3, at steps 1, 2, 3, 7, 12 of 15): ≈ 2.1s an epoch"},
		{verdict.Cadence{Steps: []int{1, 2, 5}, Of: 8, Epochs: []int{1, 1, 2}, EpochsOf: 2},
			""},
		{verdict.Cadence{Steps: []int{1, 5, 9}, Of: 12, Every: 4},
			"; recurs every 4 steps (compiled at steps 1, 5, 9 of 12): ≈ 1.0s every 4 steps"},
		{verdict.Cadence{Steps: []int{1, 2, 3}, Of: 12, Quiet: 9, Epochs: []int{1, 1, 1}, EpochsOf: 3},
			"; paid once: 3 graphs, all in epoch 1 of 3, compiled at steps 1–3 of 12 (≈ 1.0s each), none in the 9 steps after"},
	} {
		v.Cadence = &c.cad
		got := recurrence(v)
		if c.want == "" {
			if strings.Contains(got, "epoch") {
				t.Errorf("%+v: %q, want no epoch", c.cad, got)
			}
			continue
		}
		if got != c.want {
			t.Errorf("%+v:\n got %q\nwant %q", c.cad, got, c.want)
		}
	}
	v.Compilations, v.Time = 6, 6*time.Second
	v.Cadence = &verdict.Cadence{Steps: []int{1, 2, 5, 6}, Of: 8, Epochs: []int{1, 1, 2, 2}, EpochsOf: 2, EveryEpoch: 2}
	if got, want := recurrence(v), "≈ 2.0s an epoch"; !strings.Contains(got, want) || !strings.Contains(got, "2× an epoch") {
		t.Errorf("two an epoch: %q, want %q", got, want)
	}
}
