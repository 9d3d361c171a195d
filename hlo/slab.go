package hlo

// slabSize is the capacity of a new slab of the parser: full (hi) for a large module, and in
// proportion to the text left to parse (one element per per bytes of it, at least lo) for a
// small one. A fixed slab of 256 instructions, 1024 attributes, 1024 operands and 4096
// dimensions took about 130 KB for every module parsed, whatever its size: 13 GB allocated to
// read a dump of 100 000 modules of 700 bytes.
func (p *parser) slabSize(hi, per, lo int) int {
	return min(max((len(p.src)-p.pos)/per, lo), hi)
}
