package ledger

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// A family's hashes, SameHashAgain and hasHash are what a plain set gives, before and after the
// filter in front of the set is made (hashFilterFrom hashes), up to MaxHashes and past it; a
// hash seen before the filter existed is still found.
func TestModuleHashFilter(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{hashFilterFrom - 1, hashFilterFrom, 3 * hashFilterFrom, MaxHashes + 600} {
		m := &Module{hashSet: map[uint64]struct{}{}}
		seen := map[string]bool{}
		var want []string
		again := false
		for i := range n {
			h := fmt.Sprintf("0x%x", i+1)
			if i > 0 && rng.IntN(5) == 0 { // a hash given before, old or recent
				h = fmt.Sprintf("0x%x", rng.IntN(i)+1)
			}
			if seen[h] {
				again = true
			} else if len(want) < MaxHashes {
				seen[h] = true
				want = append(want, h)
			}
			m.addHash(h)
			if m.SameHashAgain != again {
				t.Fatalf("n %d, hash %d (%s): SameHashAgain %v, want %v", n, i, h, m.SameHashAgain, again)
			}
		}
		if !slices.Equal(m.Hashes, want) {
			t.Fatalf("n %d: %d hashes, want %d", n, len(m.Hashes), len(want))
		}
		if (m.hashBits != nil) != (len(want) >= hashFilterFrom) {
			t.Errorf("n %d: filter %v with %d hashes", n, m.hashBits != nil, len(want))
		}
		for _, h := range want {
			if !m.hasHash(h) {
				t.Fatalf("n %d: hasHash(%s) false", n, h)
			}
		}
		if m.hasHash("0xnever") {
			t.Errorf("n %d: hasHash of a hash never added", n)
		}
	}
}
