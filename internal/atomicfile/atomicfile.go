// Package atomicfile writes files so that a reader never sees half of one: the data goes to a
// temporary file in the same folder, which is synced and renamed over the target. A failed write
// (a full disk) leaves the previous file, or none, never a truncated one.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write writes data to path with the permissions perm. The error names path.
func Write(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
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
