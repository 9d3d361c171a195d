package cache

import (
	"container/heap"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/frameworks/framework"
)

// Caches kept as folders of entries (Neuron's neuronxcc-<version>/MODULE_<hash>/, vLLM's
// <hash>/rank_<r>_<dp>/<prefix>/): a subfolder of a cache folder that a stack's CacheTree
// claims is walked down to its entries, never deeper than the tree's MaxDepth, never through a
// link to a folder, and each entry folder is one entry: the sum of its files' sizes (to
// maxEntryDepth folders down), its newest file's time, its state.

// maxEntryDepth and maxEntryFiles bound the files summed into one entry folder's size.
const (
	maxEntryDepth = 6
	maxEntryFiles = 100_000
)

// treeRoot is a subfolder of the folder being read that is a cache tree's.
type treeRoot struct {
	name string
	tree *framework.CacheTree
}

// dir notes a subfolder: a cache tree's top folder is walked after the folder's files, any
// other is counted and left alone.
func (inv *Inventory) dir(name string) {
	for _, t := range frameworks.CacheTrees() {
		if t.Top.MatchString(name) {
			inv.roots = append(inv.roots, treeRoot{name: name, tree: t})
			return
		}
	}
	inv.Dirs++
}

// readTrees walks the cache trees found in one folder.
func (inv *Inventory) readTrees(folder Folder, use LogUse, present map[string]bool) {
	roots := inv.roots
	inv.roots = nil
	keep := &nameHeap{}
	first := len(inv.Entries)
	for _, r := range roots {
		inv.walk(folder, r.tree, []string{r.name}, use, present, keep)
	}
	inv.Entries = append(inv.Entries, *keep...)
	var buf []byte
	for _, e := range inv.Entries[first:] {
		if e.Folder && e.tree != nil && e.tree.Factors != nil {
			e.Parts = append(e.Parts, readFactors(folder, e)...)
		}
		if e.Folder && e.tree != nil && e.tree.Describe != nil && e.read != "" && describeEntry(folder, e, &buf) {
			inv.Damaged++
		}
	}
}

// describeEntry reads what a listed entry is from its file (Inductor's pickled entries): the program
// it belongs to and its key's parts. A file that is not what its kind writes makes the entry
// corrupt (it reports so, when the entry was whole before); one that cannot be read leaves what
// the path says.
func describeEntry(folder Folder, e *CacheEntry, buf *[]byte) (corrupted bool) {
	data, err := readHead(folder.FS, path.Join(e.Name, e.read), framework.MaxDescribeBytes, buf)
	if err != nil {
		return false
	}
	program, parts, ok := e.tree.Describe(data)
	if !ok {
		if e.State == "" {
			e.State = "corrupt"
			return true
		}
		return false
	}
	if program != "" && e.Graph == "" {
		e.Graph = program
	} else if program != "" {
		e.Graph += ", " + program
	}
	e.Parts = append(e.Parts, parts...)
	return false
}

// readHead reads the first max bytes of a regular file into buf, grown as needed (the bytes
// are buf's until the next read).
func readHead(fsys fs.FS, name string, max int, buf *[]byte) ([]byte, error) {
	f, st, err := openRegular(fsys, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int(min(st.Size(), int64(max)))
	if cap(*buf) < size {
		*buf = make([]byte, size)
	}
	b := (*buf)[:size]
	n, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	return b[:n], nil
}

func (inv *Inventory) walk(folder Folder, t *framework.CacheTree, p []string, use LogUse, present map[string]bool, keep *nameHeap) {
	dir := path.Join(p...)
	des, err := fs.ReadDir(folder.FS, dir)
	if err != nil {
		inv.Warnings = append(inv.Warnings, fmt.Sprintf("%s: %v", path.Join(folder.Name, dir), unwrapPath(err)))
		return
	}
	var files, subdirs []string
	for _, de := range des {
		if de.IsDir() {
			subdirs = append(subdirs, de.Name())
		} else {
			files = append(files, de.Name())
		}
	}
	if te, ok := t.Entry(p, files); ok {
		if te.Key != "" {
			present[te.Key] = true
		}
		var flat []fs.DirEntry // an entry of files only is sized from what was read
		if len(subdirs) == 0 {
			flat = des
		}
		inv.addFolder(folder, t, dir, te, use, keep, flat)
		return
	}
	if len(p) >= t.MaxDepth {
		return
	}
	for _, sd := range subdirs {
		inv.walk(folder, t, append(p[:len(p):len(p)], sd), use, present, keep)
	}
}

// addFolder counts one entry folder of a cache tree; flat, when not nil, are its files (it has
// no folder in it).
func (inv *Inventory) addFolder(folder Folder, t *framework.CacheTree, dir string, te framework.TreeEntry, use LogUse, keep *nameHeap,
	flat []fs.DirEntry) {
	e := &CacheEntry{Dir: folder.Name, Name: dir, Kind: EntryKind(t.Kind), Folder: true, Graph: te.Program, State: te.State,
		Parts: te.Parts, Key: te.Key, tree: t, read: te.Read}
	if flat != nil {
		e.Size, e.ModTime = filesSize(folder.FS, dir, flat)
	} else {
		files := 0
		e.Size, e.ModTime = folderSize(folder.FS, dir, 0, &files)
	}
	e.Hit, e.Written, e.Missed, e.Unreadable = use.Hits[te.Key], use.Writes[te.Key], use.Misses[te.Key], use.Unreadable[te.Key]
	if te.Key != "" && (use.Compiled[te.Key] && !e.Hit) {
		e.Written = true // the stack writes what it compiles into its tree
	}
	inv.Count++
	inv.Bytes += e.Size
	inv.ByKind[e.Kind]++
	if te.State != "" {
		inv.Damaged++
	}
	if e.Used() || (te.State != "" && inv.Damaged <= MaxListed) {
		inv.Entries = append(inv.Entries, e)
		return
	}
	inv.Unused++
	inv.UnusedBytes += e.Size
	heap.Push(keep, e)
	if keep.Len() > MaxListed {
		heap.Pop(keep)
	}
}

// folderSize sums the sizes of the files under dir (links followed to files, never to
// folders) and finds the newest time, bounded by maxEntryDepth and maxEntryFiles.
func folderSize(fsys fs.FS, dir string, depth int, files *int) (int64, time.Time) {
	des, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return 0, time.Time{}
	}
	var size int64
	var newest time.Time
	for _, de := range des {
		if *files >= maxEntryFiles {
			break
		}
		p := path.Join(dir, de.Name())
		if de.IsDir() {
			if depth < maxEntryDepth {
				s, m := folderSize(fsys, p, depth+1, files)
				size += s
				if m.After(newest) {
					newest = m
				}
			}
			continue
		}
		*files++
		info, err := de.Info()
		if err == nil && de.Type()&fs.ModeSymlink != 0 {
			info, err = fs.Stat(fsys, p)
		}
		if err != nil || info.IsDir() {
			continue
		}
		size += info.Size()
		if info.ModTime().After(newest) {
			newest = info.ModTime()
		}
	}
	return size, newest
}

// filesSize sums the sizes of the files of a folder read already (links followed to files) and
// finds the newest time.
func filesSize(fsys fs.FS, dir string, des []fs.DirEntry) (int64, time.Time) {
	var size int64
	var newest time.Time
	for i, de := range des {
		if i >= maxEntryFiles {
			break
		}
		info, err := de.Info()
		if err == nil && de.Type()&fs.ModeSymlink != 0 {
			info, err = fs.Stat(fsys, path.Join(dir, de.Name()))
		}
		if err != nil || info.IsDir() {
			continue
		}
		size += info.Size()
		if info.ModTime().After(newest) {
			newest = info.ModTime()
		}
	}
	return size, newest
}

// maxFactorBytes bounds a file a cache tree's Factors reads.
const maxFactorBytes = 4 << 20

// readFactors reads the parts of a listed entry's key its files spell out; a file that cannot
// be read leaves the parts its path gives.
func readFactors(folder Folder, e *CacheEntry) []framework.Factor {
	fs, err := e.tree.Factors(func(name string) ([]byte, error) { return readBounded(folder.FS, path.Join(e.Name, name)) })
	if err != nil {
		e.State = "corrupt"
		return nil
	}
	return fs
}

// readBounded reads a regular file of at most maxFactorBytes, opened once.
func readBounded(fsys fs.FS, name string) ([]byte, error) {
	f, st, err := openRegular(fsys, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > maxFactorBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than %d", name, st.Size(), maxFactorBytes)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxFactorBytes+1))
	if err == nil && len(b) > maxFactorBytes {
		err = fmt.Errorf("%s: more than %d bytes", name, maxFactorBytes)
	}
	return b, err
}

// openRegular opens a regular file of fsys (a FIFO or a device in its place is an error, never a
// wait) with what it says of itself.
func openRegular(fsys fs.FS, name string) (fs.File, fs.FileInfo, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s: not a regular file", name)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}
