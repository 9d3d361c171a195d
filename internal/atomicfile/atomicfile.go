// Package atomicfile writes files so that a reader never sees half of one: the data goes to a
// temporary file in the same folder, which is synced (unless WriteUnsynced) and renamed over
// the target. A failed write (a full disk) leaves the previous file, or none, never a truncated
// one.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write writes data to path with the permissions perm. The error names path.
func Write(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, true)
}

// WriteUnsynced is Write without the sync before the rename: a reader still never sees half of
// the file, but a crash of the machine soon after may leave the previous one (or, on a file
// system that does not order the data before the rename, an empty one). For a file the run it
// belongs to would lose anyway (a run folder's manifest), whose sync a session would wait for
// (a few milliseconds on a disk, each time).
func WriteUnsynced(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, false)
}

func write(path string, data []byte, perm os.FileMode, sync bool) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil && sync {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
