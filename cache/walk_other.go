//go:build !linux

package cache

// openOSTree opens the top folder of a cache tree on disk: by its paths in the folder's FS,
// outside Linux.
func openOSTree(folder Folder, name string) (treeDir, error) {
	return fsDir{fsys: folder.FS, name: name}, nil
}
