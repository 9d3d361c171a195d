package hlo

// slabSize is the capacity of a new slab of the parser: full (max) for a large module, and in
// proportion to the text left to parse (one element per per bytes of it, at least min) for a
// small one. A fixed slab of 256 instructions, 1024 attributes, 1024 operands and 4096
// dimensions took about 130 KB for every module parsed, whatever its size: 13 GB allocated to
// read a dump of 100 000 modules of 700 bytes.
func (p *parser) slabSize(max, per, min int) int {
	return clampInt((len(p.src)-p.pos)/per, min, max)
}

func clampInt(n, lo, hi int) int {
	return minInt(maxInt(n, lo), hi)
}

func minInt(a, b int) int {
	if a < b {
		return a
	}
	return b
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}
