package logscan

// pairSet is the set of the adjacent byte pairs of a message, hashed to 4096 bits. A rule's
// Contains literal can only be in a message that holds each of its pairs, so a literal one of
// whose pairs is missing is ruled out without searching the message; a hash collision only
// lets a search through (strings.Contains decides). It replaces, for most rules, a search of
// each candidate message for each rule's literal (a third of the parsing of a log dense in
// compile requests).
type pairSet [pairBits / 64]uint64

const pairBits = 4096

func pairHash(a, b byte) uint16 { return (uint16(a)<<4 ^ uint16(b)) % pairBits }

func (p *pairSet) fill(s string) {
	*p = pairSet{}
	for i := 0; i+1 < len(s); i++ {
		k := pairHash(s[i], s[i+1])
		p[k/64] |= 1 << (k % 64)
	}
}

// has says whether the set holds every pair of a literal's (litPairs).
func (p *pairSet) has(pairs []uint16) bool {
	for _, k := range pairs {
		if p[k/64]&(1<<(k%64)) == 0 {
			return false
		}
	}
	return true
}

// maxLitPairs bounds the pairs of a literal that are tested: a few spread over it rule out
// nearly as much as all of them.
const maxLitPairs = 6

// litPairs are the hashed pairs of lit that a message holding lit must hold: up to
// maxLitPairs distinct ones, spread over lit.
func litPairs(lit string) []uint16 {
	var out []uint16
	n := len(lit) - 1
	for i := range min(n, maxLitPairs) {
		j := i
		if n > maxLitPairs {
			j = i * (n - 1) / (maxLitPairs - 1)
		}
		k := pairHash(lit[j], lit[j+1])
		dup := false
		for _, o := range out {
			dup = dup || o == k
		}
		if !dup {
			out = append(out, k)
		}
	}
	return out
}
