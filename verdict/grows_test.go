package verdict

import (
	"strings"
	"testing"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/ledger"
)

// TestGrowingCache: a decoding step fed back the cache it returned, one token longer each time
// (the dump's comparisons say each input was the earlier version's result: diff.Cause.FedBack),
// is a cache grown by concatenation: the remedy is the stack's preallocated cache written in
// place, not buckets to pad to (which still compile once per bucket). Evenly spaced lengths fed
// from outside keep the padding.
func TestGrowingCache(t *testing.T) {
	units := []*ledger.Unit{{}, {}, {}, {}, {}}
	by := func(fed bool) map[*ledger.Unit][]diff.Cause {
		m := map[*ledger.Unit][]diff.Cause{}
		for i, n := range []string{"6", "7", "8", "9"} {
			m[units[i+1]] = []diff.Cause{{Kind: diff.CauseInputShape, FedBack: fed,
				Summary: "parameter 0 (p0.1) shape changed: f32[1," + n + ",16]{2,1,0} → f32[1," + string(rune('7'+i)) + ",16]{2,1,0}"}}
		}
		return m
	}
	for _, fed := range []bool{true, false} {
		sz := sizesOf(units, by(fed))
		if sz == nil {
			t.Fatalf("fed %v: no sizes", fed)
		}
		sz.grown(units, by(fed), 0, nil)
		v := Verdict{Framework: "torch-xla", Sizes: sz, Causes: []Cause{{Kind: diff.CauseInputShape, Count: 4}}}
		act := action(&v, true, nil, nil)
		cache := strings.Contains(act, "index_copy_") && strings.Contains(act, "grows by 1") && !strings.Contains(act, "pad dimension")
		if cache != fed {
			t.Errorf("fed back %v: action %q", fed, act)
		}
	}
}
