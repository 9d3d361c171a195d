//go:build amd64 && !purego

package logscan

import "golang.org/x/sys/cpu"

// teddyAVX2 is teddyScanGeneric over 32 positions a step, with AVX2 (teddy_amd64.s). It stops
// when fewer than 35 bytes are left after the next block's start, or when out has room for fewer
// than 32 more positions; out must not be longer than 1<<31 entries, nor text than teddyMaxText.
//
//go:noescape
func teddyAVX2(t *teddy, text []byte, pos int, out []uint32) (n, next int)

func init() {
	if cpu.X86.HasAVX2 {
		teddyVectors = append(teddyVectors, namedScanner{"avx2", teddyAVX2})
		teddyVector = teddyAVX2
	}
}
