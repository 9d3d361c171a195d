package padding

import (
	"math"
	"math/rand"
	"slices"
	"strconv"
	"testing"
)

func sizesOf(vs ...int) []Size {
	var out []Size
	for _, v := range vs {
		out = append(out, Size{Value: v, Count: 1})
	}
	return out
}

// The worked example of issue 21: [3,3,4,5,5,5,6,7,8,8] with K=3 and the tops 5, 7 (and the
// largest, 8) pads 6 elements, exactly. It is not the least waste for three buckets: 3, 5, 8
// pads 4 (brute force agrees, below), and that is what Optimal proposes.
func TestOptimalWorkedExample(t *testing.T) {
	sizes := sizesOf(3, 3, 4, 5, 5, 5, 6, 7, 8, 8)
	if p := Evaluate("issue", sizes, []int{5, 7}); !slices.Equal(p.Tops, []int{5, 7, 8}) || p.Waste != 6 || p.Compilations != 3 {
		t.Errorf("tops 5, 7: %+v", p)
	} else if want := 100 * 6.0 / 54; math.Abs(p.Overhead-want) > 1e-9 {
		t.Errorf("overhead %v, want %v", p.Overhead, want)
	}
	p := Optimal(sizes, 3)
	if !slices.Equal(p.Tops, []int{3, 5, 8}) || p.Waste != 4 || p.Waste != bruteForce(sizes, 3) {
		t.Errorf("optimal: %+v", p)
	}
	if one := Optimal(sizes, 1); !slices.Equal(one.Tops, []int{8}) || one.Waste != 26 {
		t.Errorf("one bucket %+v", one)
	}
}

// bruteForce tries every set of k tops among the distinct sizes (the largest always one).
func bruteForce(sizes []Size, k int) int64 {
	sizes = Normalize(sizes)
	n := len(sizes)
	best := int64(math.MaxInt64)
	for mask := 0; mask < 1<<(n-1); mask++ {
		var tops []int
		for i := 0; i < n-1; i++ {
			if mask&(1<<i) != 0 {
				tops = append(tops, sizes[i].Value)
			}
		}
		if len(tops) != k-1 {
			continue
		}
		tops = append(tops, sizes[n-1].Value)
		if w := Evaluate("", sizes, tops).Waste; w < best {
			best = w
		}
	}
	return best
}

// The dynamic program finds what trying every bucket set finds, on random distributions.
func TestOptimalEqualsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for round := 0; round < 400; round++ {
		var sizes []Size
		for n := 1 + rng.Intn(11); n > 0; n-- {
			sizes = append(sizes, Size{Value: 1 + rng.Intn(300), Count: 1 + rng.Intn(20)})
		}
		distinct := len(Normalize(sizes))
		for k := 1; k <= distinct; k++ {
			p := Optimal(sizes, k)
			if want := bruteForce(sizes, k); p.Waste != want {
				t.Fatalf("sizes %v, k %d: waste %d, brute force %d (tops %v)", sizes, k, p.Waste, want, p.Tops)
			}
			if p.Compilations != k || len(p.Tops) != k {
				t.Fatalf("sizes %v, k %d: %+v", sizes, k, p)
			}
		}
		if p := Optimal(sizes, distinct+3); p.Waste != 0 || p.Compilations != distinct {
			t.Fatalf("more buckets than sizes: %+v", p)
		}
	}
}

func TestPlans(t *testing.T) {
	// lengths 49..60, as a text classifier's batches fed them
	var sizes []Size
	for v := 49; v <= 60; v++ {
		sizes = append(sizes, Size{Value: v, Count: 3})
	}
	plans := Plans(sizes, 8)
	byName := map[string]Plan{}
	for _, p := range plans {
		byName[p.Name] = p
	}
	if p := byName["powers of 2"]; !slices.Equal(p.Tops, []int{64}) || p.Compilations != 1 {
		t.Errorf("powers of 2: %+v", p)
	}
	if p := byName["multiples of 8"]; !slices.Equal(p.Tops, []int{56, 64}) || p.Compilations != 2 {
		t.Errorf("multiples of 8: %+v", p)
	}
	if p := byName["optimal, 1 bucket(s)"]; !slices.Equal(p.Tops, []int{60}) {
		t.Errorf("optimal 1: %+v", p)
	}
	// Without step times: the fewest compilations that pad at most 10% (one bucket of 60 pads
	// 10.1%).
	if b := plans[Best(plans, 1, 0)]; b.Compilations != 2 || b.Overhead > 10 {
		t.Errorf("best %+v", b)
	}
	// With costs, the least total cost; expensive padding wants many buckets, expensive
	// compilations one.
	for _, c := range [][2]float64{{0.001, 1}, {100, 0.001}} {
		b := Best(plans, c[0], c[1])
		for _, p := range plans {
			if cost(p, c) < cost(plans[b], c) {
				t.Errorf("costs %v: %+v beats the best %+v", c, p, plans[b])
			}
		}
	}
	if b := plans[Best(plans, 100, 0.001)]; b.Compilations != 1 {
		t.Errorf("expensive compilations: %+v", b)
	}
}

func TestEvaluate(t *testing.T) {
	p := Evaluate("x", []Size{{32, 3}, {24, 1}, {0, 5}, {32, 1}}, []int{16})
	if !slices.Equal(p.Tops, []int{16, 32}) || p.Waste != 8 || p.Compilations != 1 {
		t.Errorf("a size above every top gets its own: %+v", p)
	}
}

func TestPattern(t *testing.T) {
	for _, c := range []struct {
		seq  []int
		want string
	}{
		{[]int{32, 32, 32}, "fixed"},
		{[]int{32, 32, 32, 24, 32, 32, 32, 24}, "remainder"},
		{[]int{64, 64, 40, 64, 64, 40}, "remainder"},
		{[]int{16, 16, 24, 24, 32}, "growing"},
		{[]int{51, 58, 49, 60, 53}, "spread"},
		{[]int{24, 24, 32}, "growing"},
		{[]int{32, 24}, "remainder"}, // an epoch's remainder, as compilations show it
		{[]int{24, 32}, "growing"},
	} {
		if got := Pattern(c.seq); got != c.want {
			t.Errorf("%v: %s, want %s", c.seq, got, c.want)
		}
	}
}

func cost(p Plan, c [2]float64) float64 { return float64(p.Compilations)*c[0] + float64(p.Waste)*c[1] }

// naiveTops is the plain O(k·n²) dynamic program Optimal was first written as: for each bucket
// end, every previous end tried, the earliest of equal wastes kept.
func naiveTops(sizes []Size, k int) []int {
	sizes = Normalize(sizes)
	n := len(sizes)
	cost := func(i, j int) int64 {
		var w int64
		for t := i; t <= j; t++ {
			w += int64(sizes[t].Count) * int64(sizes[j].Value-sizes[t].Value)
		}
		return w
	}
	best := make([][]int64, k+1)
	from := make([][]int, k+1)
	for b := range best {
		best[b], from[b] = make([]int64, n), make([]int, n)
		for j := range best[b] {
			best[b][j] = math.MaxInt64
		}
	}
	for j := 0; j < n; j++ {
		best[1][j], from[1][j] = cost(0, j), -1
	}
	for b := 2; b <= k; b++ {
		for j := b - 1; j < n; j++ {
			for i := b - 2; i < j; i++ {
				if c := best[b-1][i] + cost(i+1, j); c < best[b][j] {
					best[b][j], from[b][j] = c, i
				}
			}
		}
	}
	var tops []int
	for b, j := k, n-1; b >= 1 && j >= 0; b-- {
		tops = append(tops, sizes[j].Value)
		j = from[b][j]
	}
	slices.Sort(tops)
	return tops
}

// The divide-and-conquer program picks the very tops the plain one does, ties included (many
// equal counts and evenly spaced sizes make ties), on more sizes than brute force can try.
func TestOptimalEqualsNaiveDP(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for round := 0; round < 200; round++ {
		var sizes []Size
		step := 1 + rng.Intn(3)
		for n := 1 + rng.Intn(60); n > 0; n-- {
			c := 1
			if round%2 == 0 {
				c = 1 + rng.Intn(30)
			}
			sizes = append(sizes, Size{Value: step * (1 + rng.Intn(80)), Count: c})
		}
		for k := 1; k <= 9; k++ {
			want := naiveTops(sizes, min(k, len(Normalize(sizes))))
			if got := Optimal(sizes, k).Tops; !slices.Equal(got, want) {
				t.Fatalf("sizes %v, k %d: tops %v, the plain program %v", sizes, k, got, want)
			}
		}
	}
}

// Plans stays fast on a huge number of distinct sizes (one dimension of a generator that took
// every length): 100 000 sizes, 8 optimal bucket sets.
func BenchmarkPlansManySizes(b *testing.B) {
	for _, n := range []int{1000, 100_000} {
		rng := rand.New(rand.NewSource(1))
		var sizes []Size
		for v := 1; v <= n; v++ {
			sizes = append(sizes, Size{Value: v * 3, Count: 1 + rng.Intn(50)})
		}
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Plans(sizes, 8)
			}
		})
	}
}
