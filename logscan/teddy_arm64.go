//go:build arm64 && !purego

package logscan

import "golang.org/x/sys/cpu"

// teddyNEON is teddyScanGeneric over 16 positions a step, with NEON (teddy_arm64.s). It stops
// when fewer than 19 bytes are left after the next block's start, or when out has room for fewer
// than 16 more positions; text must be shorter than teddyMaxText.
//
//go:noescape
func teddyNEON(t *teddy, text []byte, pos int, out []uint32) (n, next int)

func init() {
	if cpu.ARM64.HasASIMD {
		teddyVectors = append(teddyVectors, namedScanner{"neon", teddyNEON})
		teddyVector = teddyNEON
	}
}
