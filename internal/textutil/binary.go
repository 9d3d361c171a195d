package textutil

import "bytes"

// BinaryHead is how many of an input's first bytes Binary looks at.
const BinaryHead = 8 << 10

// Binary says why the start of an input is not text ("" when it is): the magic number of an
// executable, a core file or an archive, or NUL bytes in its first BinaryHead bytes (as grep
// decides). A scanned log and a file found in a followed folder are judged by it alike.
func Binary(b []byte) string {
	head := b[:min(len(b), BinaryHead)]
	switch {
	case bytes.HasPrefix(head, []byte("\x7fELF")):
		return "an ELF executable, library or core file"
	case bytes.HasPrefix(head, []byte("MZ")) && bytes.Contains(head, []byte("PE\x00\x00")):
		return "a Windows executable"
	case bytes.HasPrefix(head, []byte("\xcf\xfa\xed\xfe")), bytes.HasPrefix(head, []byte("\xce\xfa\xed\xfe")),
		bytes.HasPrefix(head, []byte("\xca\xfe\xba\xbe")):
		return "a Mach-O executable"
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return "a zip archive"
	case bytes.HasPrefix(head, []byte("\x89PNG")):
		return "a PNG image"
	case bytes.IndexByte(head, 0) >= 0:
		return "NUL bytes in its first 8 KiB"
	}
	return ""
}
