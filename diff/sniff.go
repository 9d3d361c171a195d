package diff

import (
	"io"
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

// HasDumpFiles reports whether a folder, or the folder of one of its processes (pid-N), holds
// files named as XLA dumps them ([ts.]module_NNNN[.name].suffix.txt).
func HasDumpFiles(dir string) bool {
	folders, _ := runfolder.DumpFolders(dir)
	for _, f := range folders {
		for _, e := range f.Entries {
			if base, ok := hloBase(e.Name()); ok && !e.IsDir() {
				if _, _, _, ok := ParseDumpName(filepath.Base(base)); ok {
					return true
				}
			}
		}
	}
	return false
}
