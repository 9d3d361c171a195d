package logscan

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// checkPairs: the pair filter never rules out a literal the message holds.
func checkPairs(t *testing.T, msg, lit string) {
	t.Helper()
	var p pairSet
	p.fill(msg)
	if strings.Contains(msg, lit) && !p.has(litPairs(lit)) {
		t.Fatalf("the pair filter rules out %q in %q", lit, msg)
	}
}

func TestPairFilter(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := "abcXYZ :()0x\x00\xff"
	ruledOut := 0
	for range 20000 {
		b := make([]byte, r.IntN(60))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		msg := string(b)
		i := r.IntN(len(msg) + 1)
		j := i + r.IntN(len(msg)-i+1)
		checkPairs(t, msg, msg[i:j])
		other := "Begin XLA compilation: "
		checkPairs(t, msg, other)
		var p pairSet
		p.fill(msg)
		if !p.has(litPairs(other)) {
			ruledOut++
		}
	}
	if ruledOut < 19000 {
		t.Errorf("the filter ruled out an absent literal in %d messages of 20000", ruledOut)
	}
	for _, lit := range []string{"", "a", "ab", "XLA compilation: ", strings.Repeat("ab", 40)} {
		if n := len(litPairs(lit)); n > maxLitPairs || len(lit) > 1 && n == 0 {
			t.Errorf("%d pairs for %q", n, lit)
		}
	}
}

func FuzzPairFilter(f *testing.F) {
	f.Add("Begin XLA compilation: cluster_1 (Hash: 0x1)", 6, 20)
	f.Add("aaaa", 0, 4)
	f.Fuzz(func(t *testing.T, msg string, i, j int) {
		if len(msg) == 0 {
			return
		}
		i, j = abs(i)%(len(msg)+1), abs(j)%(len(msg)+1)
		if i > j {
			i, j = j, i
		}
		checkPairs(t, msg, msg[i:j])
	})
}

func abs(x int) int {
	if x < 0 {
		return -(x + 1)
	}
	return x
}
