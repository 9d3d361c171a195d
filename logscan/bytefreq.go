package logscan

// byteFrequency ranks bytes by how often they occur in a log (English text with paths, numbers and
// key=value pairs): about 10·log2 of a byte's count per 10 000 bytes, so that a window's sum ranks it
// by the log of its likelihood. Lowercase letters, space and digits are common; uppercase letters,
// brackets and most punctuation are rare; bytes outside ASCII score 0. The vector prefilter picks each
// anchor's rarest window with it. Only the order matters, and only roughly: a poor ranking costs
// time (more candidates to verify), never a missed line.
var byteFrequency = [256]uint8{
	0, 0, 0, 0, 0, 0, 0, 0, 0, 33, 66, 0, 0, 23, 0, 0, // 0x00
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0x10
	101, 16, 43, 23, 10, 33, 16, 43, 56, 56, 33, 33, 55, 69, 73, 70, // 0x20
	80, 72, 72, 66, 66, 66, 61, 61, 65, 64, 77, 39, 33, 65, 33, 16, // 0x30
	16, 51, 39, 53, 43, 53, 43, 46, 33, 53, 16, 23, 43, 43, 49, 43, // 0x40
	53, 10, 46, 49, 51, 39, 33, 23, 39, 23, 10, 55, 23, 55, 10, 73, // 0x50
	10, 86, 56, 82, 75, 92, 68, 69, 72, 87, 39, 48, 81, 75, 85, 89, // 0x60
	81, 30, 86, 86, 88, 75, 55, 56, 56, 61, 30, 33, 33, 33, 10, 0, // 0x70
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0x80
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0x90
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0xa0
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0xb0
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0xc0
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0xd0
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0xe0
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0xf0
}
