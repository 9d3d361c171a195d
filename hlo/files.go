package hlo

import "iter"

// FileResult is one file's outcome of ParseFiles.
type FileResult struct {
	Path string
	// Module is the parsed module; with a parse error, the partial module (nil when the file
	// could not be read).
	Module *Module
	// Err is why the file could not be read, or the parse's ErrorList.
	Err error
}

// ParseFiles reads each path with read and parses it, yielding the files in the order given,
// one at a time (a module is dropped once the caller moves on): the per-file work of recomp
// hlo check and fingerprint. read does the I/O (stdin, gzip, a size cap), so that this package
// stays free of it.
func ParseFiles(paths []string, read func(path string) ([]byte, error)) iter.Seq[FileResult] {
	return func(yield func(FileResult) bool) {
		for _, p := range paths {
			r := FileResult{Path: p}
			src, err := read(p)
			if err != nil {
				r.Err = err
			} else {
				r.Module, r.Err = Parse(p, src)
			}
			if !yield(r) {
				return
			}
		}
	}
}
