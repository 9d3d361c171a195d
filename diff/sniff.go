package diff

import (
	"io"
	"os"
	"path/filepath"

	"github.com/recomp/recomp/internal/input"
	"github.com/recomp/recomp/runfolder"
)

// IsHLOFile reports whether a file holds HLO text (by its first bytes; gzip is read
// transparently), as opposed to a log.
func IsHLOFile(path string) bool {
	f, err := input.Open(path, nil)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	return looksLikeHLO(head[:n])
}

// HasDumpFiles reports whether a folder holds files named as XLA dumps them
// ([ts.]module_NNNN[.name].suffix.txt).
func HasDumpFiles(dir string) bool { return hasDumpFiles(dir, true) }

// hasDumpFiles is HasDumpFiles, the folders of the dump's processes (pid-N) looked into when top.
func hasDumpFiles(dir string, top bool) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if base, ok := hloBase(e.Name()); ok && !e.IsDir() {
			if _, _, _, ok := ParseDumpName(filepath.Base(base)); ok {
				return true
			}
		}
	}
	for _, e := range entries {
		if _, ok := runfolder.ProcessFolder(e.Name()); ok && top && e.IsDir() && hasDumpFiles(filepath.Join(dir, e.Name()), false) {
			return true
		}
	}
	return false
}
