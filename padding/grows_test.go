package padding

import "testing"

// TestGrowsByStep: a buffer grown by concatenation (a KV cache, one token or one chunk a call)
// compiles each size once, each the last plus the same step; sizes fed otherwise do not.
func TestGrowsByStep(t *testing.T) {
	for _, c := range []struct {
		seq  []int
		step int
		ok   bool
	}{
		{[]int{6, 7, 8, 9, 10, 11}, 1, true},
		{[]int{11, 16, 21, 26, 31}, 5, true},
		{[]int{8, 9, 10}, 1, true},
		{[]int{8, 9}, 0, false},                 // two sizes: any two grow by their difference
		{[]int{8, 12, 16, 20, 24, 28}, 4, true}, // evenly spaced bucket lengths fed in order look the same
		{[]int{8, 9, 11, 12}, 0, false},         // uneven steps: sizes fed as they came
		{[]int{32, 32, 24}, 0, false},           // a last partial batch
		{[]int{6, 7, 8, 7}, 0, false},           // a size again
		{[]int{11, 10, 9, 8}, 0, false},         // shrinking
		{[]int{6, 7, 8, 8, 9}, 0, false},        // a size compiled twice
	} {
		step, ok := GrowsByStep(c.seq)
		if ok != c.ok || step != c.step {
			t.Errorf("GrowsByStep(%v) = %d, %v; want %d, %v", c.seq, step, ok, c.step, c.ok)
		}
	}
}
