// Package padding proposes the sizes to pad a varying dimension to (a batch, a sequence length,
// an image side), so that a program compiles once per bucket instead of once per size. Given
// the sizes a run fed and how often, it computes bucket sets — the exact optimal K tops by
// dynamic programming, powers of two, multiples of 8, 64 and 128, percentiles — each with its
// number of compilations and its padding overhead, names the pattern the sizes follow (an
// epoch's remainder, monotone growth, a spread), and picks the set that costs least when the
// cost of a compilation and of a padded element are known.
package padding

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Size is one size a run fed and how many times (steps, batches) it fed it.
type Size struct {
	Value int
	Count int
}

// Plan is a bucket set: every size is padded up to the smallest top at or above it.
type Plan struct {
	// Name says how the tops were chosen: "optimal", "powers of 2", "multiples of 64",
	// "percentiles".
	Name string
	// Tops are the bucket sizes, ascending; the largest is at least the largest size fed.
	Tops []int
	// Compilations is how many distinct programs the run would compile: the tops that some
	// size pads to.
	Compilations int
	// Waste is the padded elements along the dimension, Σ count × (top − size).
	Waste int64
	// Overhead is Waste in % of the real elements, Σ count × size.
	Overhead float64
}

// Normalize merges sizes given more than once, drops non-positive values and counts, and sorts
// them ascending.
func Normalize(sizes []Size) []Size {
	if slices.IsSortedFunc(sizes, func(a, b Size) int { return cmp.Compare(a.Value, b.Value) }) &&
		!slices.ContainsFunc(sizes, func(s Size) bool { return s.Value <= 0 || s.Count <= 0 }) &&
		!hasRepeats(sizes) {
		return slices.Clone(sizes) // already normal: every plan of Plans normalises its sizes again
	}
	m := map[int]int{}
	for _, s := range sizes {
		if s.Value > 0 && s.Count > 0 {
			m[s.Value] += s.Count
		}
	}
	out := make([]Size, 0, len(m))
	for v, c := range m {
		out = append(out, Size{v, c})
	}
	slices.SortFunc(out, func(a, b Size) int { return cmp.Compare(a.Value, b.Value) })
	return out
}

// hasRepeats says whether sorted sizes give a value twice.
func hasRepeats(sorted []Size) bool {
	for i := 1; i < len(sorted); i++ {
		if sorted[i].Value == sorted[i-1].Value {
			return true
		}
	}
	return false
}

// Evaluate is the plan of the given tops for sizes: its compilations, waste and overhead. A
// size above every top gets a top of its own (it cannot be padded down).
func Evaluate(name string, sizes []Size, tops []int) Plan {
	sizes = Normalize(sizes)
	tops = slices.Clone(tops)
	slices.Sort(tops)
	tops = slices.Compact(tops)
	if n := len(sizes); n > 0 && (len(tops) == 0 || tops[len(tops)-1] < sizes[n-1].Value) {
		tops = append(tops, sizes[n-1].Value)
	}
	p := Plan{Name: name, Tops: tops}
	used := map[int]bool{}
	var real int64
	for _, s := range sizes {
		i := sort.SearchInts(tops, s.Value)
		used[tops[i]] = true
		p.Waste += int64(s.Count) * int64(tops[i]-s.Value)
		real += int64(s.Count) * int64(s.Value)
	}
	p.Compilations = len(used)
	if real > 0 {
		p.Overhead = 100 * float64(p.Waste) / float64(real)
	}
	return p
}

// Optimal returns the k tops that waste the fewest padded elements (fewer when there are fewer
// than k distinct sizes). The largest size is always a top.
func Optimal(sizes []Size, k int) Plan {
	sizes = Normalize(sizes)
	if len(sizes) == 0 || k <= 0 {
		return Evaluate("optimal", sizes, nil)
	}
	tops := optimalTops(sizes, k)
	return Evaluate("optimal", sizes, tops[len(tops)-1])
}

// optimalTops returns, for each k = 1…min(maxK, n), the k tops that waste the fewest padded
// elements of the n distinct sizes (normalised, maxK ≥ 1): one exact dynamic program over the
// sizes whose k-th layer is the best k-bucket cover. The waste of padding a run of sizes up to
// its last one satisfies the quadrangle inequality, so the best previous bucket end is monotone
// in the current one and each layer is found by divide and conquer: O(maxK·n·log n), not
// O(maxK·n²) (100 000 distinct sizes take milliseconds, not hours). Among equal wastes the
// earliest previous bucket end is taken, as a scan over all of them would.
func optimalTops(sizes []Size, maxK int) [][]int {
	n := len(sizes)
	k := min(maxK, n)
	// cost(i, j): the waste of padding sizes i..j (inclusive) up to sizes[j].
	cnt := make([]int64, n+1) // prefix sums of counts
	sum := make([]int64, n+1) // prefix sums of count × value
	for i, s := range sizes {
		cnt[i+1] = cnt[i] + int64(s.Count)
		sum[i+1] = sum[i] + int64(s.Count)*int64(s.Value)
	}
	cost := func(i, j int) int64 {
		return (cnt[j+1]-cnt[i])*int64(sizes[j].Value) - (sum[j+1] - sum[i])
	}
	// prev[j], cur[j]: the least waste covering sizes 0..j with b-1, b buckets, the last topped
	// at j; from[b][j]: where the b-1 buckets before it end.
	prev, cur := make([]int64, n), make([]int64, n)
	from := make([][]int, k+1)
	from[1] = make([]int, n)
	for j := 0; j < n; j++ {
		prev[j], from[1][j] = cost(0, j), -1
	}
	for b := 2; b <= k; b++ {
		from[b] = make([]int, n)
		// solve fills cur[j] for j in lo..hi, knowing the previous bucket ends in iLo..iHi.
		var solve func(lo, hi, iLo, iHi int)
		solve = func(lo, hi, iLo, iHi int) {
			if lo > hi {
				return
			}
			j := (lo + hi) / 2
			bi, bc := -1, int64(math.MaxInt64)
			for i := max(iLo, b-2); i <= min(iHi, j-1); i++ {
				if c := prev[i] + cost(i+1, j); c < bc {
					bi, bc = i, c
				}
			}
			cur[j], from[b][j] = bc, bi
			solve(lo, j-1, iLo, bi)
			solve(j+1, hi, bi, iHi)
		}
		solve(b-1, n-1, b-2, n-2)
		prev, cur = cur, prev
	}
	out := make([][]int, k)
	for kk := 1; kk <= k; kk++ {
		var tops []int
		for b, j := kk, n-1; b >= 1 && j >= 0; b-- {
			tops = append(tops, sizes[j].Value)
			j = from[b][j]
		}
		slices.Sort(tops)
		out[kk-1] = tops
	}
	return out
}

// PowersOfTwo pads every size to the next power of two.
func PowersOfTwo(sizes []Size) Plan {
	var tops []int
	for _, s := range Normalize(sizes) {
		t := 1
		for t < s.Value {
			t *= 2
		}
		tops = append(tops, t)
	}
	return Evaluate("powers of 2", sizes, tops)
}

// Multiples pads every size to the next multiple of m.
func Multiples(sizes []Size, m int) Plan {
	var tops []int
	for _, s := range Normalize(sizes) {
		tops = append(tops, (s.Value+m-1)/m*m)
	}
	return Evaluate(fmt.Sprintf("multiples of %d", m), sizes, tops)
}

// Percentiles tops the buckets at the sizes below which 50%, 90% and all of the fed sizes
// (weighted by count) fall.
func Percentiles(sizes []Size) Plan {
	sizes = Normalize(sizes)
	var total int
	for _, s := range sizes {
		total += s.Count
	}
	var tops []int
	for _, q := range []float64{0.5, 0.9, 1} {
		seen := 0
		for _, s := range sizes {
			seen += s.Count
			if float64(seen) >= q*float64(total) {
				tops = append(tops, s.Value)
				break
			}
		}
	}
	return Evaluate("percentiles 50/90/100", sizes, tops)
}

// Plans are the bucket sets worth comparing for sizes: the optimal tops for K = 1…maxK (as
// many as there are distinct sizes), then powers of two, multiples of 8, 64 and 128 and
// percentiles where they differ from the optimal ones.
func Plans(sizes []Size, maxK int) []Plan {
	sizes = Normalize(sizes)
	var out []Plan
	if len(sizes) > 0 && maxK > 0 {
		for i, tops := range optimalTops(sizes, maxK) {
			out = append(out, Evaluate(fmt.Sprintf("optimal, %d bucket(s)", i+1), sizes, tops))
		}
	}
	for _, p := range []Plan{PowersOfTwo(sizes), Multiples(sizes, 8), Multiples(sizes, 64), Multiples(sizes, 128), Percentiles(sizes)} {
		if !slices.ContainsFunc(out, func(q Plan) bool { return slices.Equal(q.Tops, p.Tops) }) {
			out = append(out, p)
		}
	}
	return out
}

// Best returns the index of the plan that costs least: compileSeconds per compilation and
// elementSeconds per padded element. When the step time is not known (elementSeconds 0), the
// plan with the fewest compilations among those that pad at most 10% (among all when none
// does), then the least overhead. -1 for no plans.
func Best(plans []Plan, compileSeconds, elementSeconds float64) int {
	best, bestCost := -1, math.Inf(1)
	for i, p := range plans {
		var c float64
		if elementSeconds > 0 {
			c = float64(p.Compilations)*compileSeconds + float64(p.Waste)*elementSeconds
		} else {
			c = float64(p.Compilations)*1e6 + p.Overhead // fewest compilations, then least waste
			if p.Overhead > 10 {
				c += 1e12
			}
		}
		if c < bestCost {
			best, bestCost = i, c
		}
	}
	return best
}

// Pattern names how a sequence of sizes (in the order they were fed) varies:
//   - "fixed": one size;
//   - "remainder": one size almost always, another now and then at the end of a pass over the
//     data (an epoch's last partial batch);
//   - "growing": sizes that never shrink (a sequence that grows while generating);
//   - "spread": anything else.
func Pattern(seq []int) string {
	distinct := map[int]int{}
	for _, v := range seq {
		distinct[v]++
	}
	switch {
	case len(distinct) <= 1:
		return "fixed"
	case len(distinct) == 2:
		// the larger size first and at least as common (each compilation of a size is one
		// occurrence when the log names compilations only), the smaller never twice in a row
		var small, large int
		for v := range distinct {
			if small == 0 || v < small {
				small = v
			}
			if v > large {
				large = v
			}
		}
		if seq[0] == large && distinct[large] >= distinct[small] && !twiceInARow(seq, small) {
			return "remainder"
		}
	}
	if slices.IsSorted(seq) {
		return "growing"
	}
	return "spread"
}

func twiceInARow(seq []int, v int) bool {
	for i := 1; i < len(seq); i++ {
		if seq[i] == v && seq[i-1] == v {
			return true
		}
	}
	return false
}

// GrowsByStep says whether sizes, in the order compiled, grow by one step each time: three or
// more, none twice, each the last plus the same positive step (6, 7, 8, … or 11, 16, 21, …).
// That is how a buffer grown by concatenation at each call looks (a key/value cache that takes
// one token, or one chunk, a step), but also evenly spaced lengths fed in order: the caller
// holds other evidence that the buffer is fed back (the graph returns it grown).
func GrowsByStep(seq []int) (step int, ok bool) {
	if len(seq) < 3 || seq[1] <= seq[0] {
		return 0, false
	}
	step = seq[1] - seq[0]
	for i := 2; i < len(seq); i++ {
		if seq[i]-seq[i-1] != step {
			return 0, false
		}
	}
	return step, true
}
