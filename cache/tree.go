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
	w := &treeWalk{inv: inv, folder: folder, use: use, present: present, keep: &nameHeap{}}
	first := len(inv.Entries)
	for _, r := range roots {
		w.t, w.p = r.tree, append(w.p[:0], r.name)
		d, err := openTree(folder, r.name)
		if err != nil {
			w.warn(err)
			continue
		}
		w.walk(d)
		d.close()
	}
	inv.Entries = append(inv.Entries, *w.keep...)
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
	if len(e.Parts) == 0 {
		e.Parts = parts // the parts Describe made, at their size
	} else {
		e.Parts = append(e.Parts, parts...)
	}
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

// treeWalk walks one folder's cache trees: p is the path of the folder being read below the
// cache folder (top first); dirs and files hold each depth's names, reused from folder to folder.
type treeWalk struct {
	inv         *Inventory
	folder      Folder
	t           *framework.CacheTree
	use         LogUse
	present     map[string]bool
	keep        *nameHeap
	p           []string
	dirs, files [][]string
	name        []byte // p joined, for the entry being counted
}

// warn says that the folder at w.p could not be read.
func (w *treeWalk) warn(err error) {
	w.inv.Warnings = append(w.inv.Warnings, fmt.Sprintf("%s: %v", path.Join(w.folder.Name, path.Join(w.p...)), unwrapPath(err)))
}

// list reads a folder's names into the buffers of its depth.
func (w *treeWalk) list(d treeDir, depth int) (dirs, files []string, err error) {
	for len(w.dirs) <= depth {
		w.dirs, w.files = append(w.dirs, nil), append(w.files, nil)
	}
	dirs, files, err = d.list(w.dirs[depth][:0], w.files[depth][:0])
	w.dirs[depth], w.files[depth] = dirs, files
	return dirs, files, err
}

// walk reads the folder d at w.p: an entry, or a folder of the tree to walk down.
func (w *treeWalk) walk(d treeDir) {
	depth := len(w.p)
	dirs, files, err := w.list(d, depth)
	if err != nil {
		w.warn(err)
		return
	}
	if te, ok := w.t.Entry(w.p, files); ok {
		n := 0
		size, mod := w.entrySize(d, dirs, files, depth, 0, &n)
		w.add(te, size, mod)
		return
	}
	if depth >= w.t.MaxDepth {
		return
	}
	for _, name := range dirs {
		w.p = append(w.p, name)
		if sub, err := d.sub(name); err != nil {
			w.warn(err)
		} else {
			w.walk(sub)
			sub.close()
		}
		w.p = w.p[:depth]
	}
}

// entrySize sums the sizes of the files of an entry folder read already (links followed to
// files, never to folders) and of its folders', to maxEntryDepth folders down and maxEntryFiles
// files in all, in name order, and finds the newest time. depth is the folder's in w's buffers,
// below how far it is below the entry folder; n counts the files.
func (w *treeWalk) entrySize(d treeDir, dirs, files []string, depth, below int, n *int) (int64, time.Time) {
	var size int64
	var newest time.Time
	for i, j := 0, 0; (i < len(dirs) || j < len(files)) && *n < maxEntryFiles; {
		if j == len(files) || (i < len(dirs) && dirs[i] < files[j]) {
			name := dirs[i]
			i++
			if below >= maxEntryDepth {
				continue
			}
			sub, err := d.sub(name)
			if err != nil {
				continue
			}
			if sd, sf, err := w.list(sub, depth+1); err == nil {
				s, m := w.entrySize(sub, sd, sf, depth+1, below+1, n)
				size += s
				if m.After(newest) {
					newest = m
				}
			}
			sub.close()
			continue
		}
		name := files[j]
		j++
		*n++
		if s, m, ok := d.stat(name); ok {
			size += s
			if m.After(newest) {
				newest = m
			}
		}
	}
	return size, newest
}

// add counts one entry folder of a cache tree, at w.p: listed when a log touched it or it is
// damaged (the first MaxListed), kept among the first MaxListed others by name, or only counted
// (no entry made).
func (w *treeWalk) add(te framework.TreeEntry, size int64, mod time.Time) {
	inv, use := w.inv, w.use
	hit, written, missed, unreadable := use.Hits[te.Key], use.Writes[te.Key], use.Misses[te.Key], use.Unreadable[te.Key]
	if te.Key != "" && (use.Compiled[te.Key] && !hit) {
		written = true // the stack writes what it compiles into its tree
	}
	if te.Key != "" && missed {
		w.present[te.Key] = true
	}
	kind := EntryKind(w.t.Kind)
	inv.Count++
	inv.Bytes += size
	inv.ByKind[kind]++
	if te.State != "" {
		inv.Damaged++
	}
	listed := hit || written || missed || unreadable != "" || (te.State != "" && inv.Damaged <= MaxListed)
	if !listed {
		inv.Unused++
		inv.UnusedBytes += size
	}
	w.name = w.name[:0]
	for i, s := range w.p {
		if i > 0 {
			w.name = append(w.name, '/')
		}
		w.name = append(w.name, s...)
	}
	if !listed && w.keep.Len() == MaxListed && string(w.name) >= (*w.keep)[0].Name {
		return // not among the first MaxListed names: counted, not kept
	}
	e := &CacheEntry{Dir: w.folder.Name, Name: string(w.name), Kind: kind, Folder: true, Graph: te.Program, State: te.State,
		Parts: te.Parts, Key: te.Key, Size: size, ModTime: mod, Hit: hit, Written: written, Missed: missed, Unreadable: unreadable,
		tree: w.t, read: te.Read}
	if listed {
		inv.Entries = append(inv.Entries, e)
		return
	}
	heap.Push(w.keep, e)
	if w.keep.Len() > MaxListed {
		heap.Pop(w.keep)
	}
}

// treeDir is an open folder of a cache tree. A folder on disk (Folder.Path) is read with the
// system's calls, each folder opened from its parent's descriptor and never through a link
// (walk_linux.go); any other fs.FS by its paths (fsDir).
type treeDir interface {
	// list appends the folder's subfolders (a link to a folder is not one) and its other
	// names to dirs and files, each sorted.
	list(dirs, files []string) ([]string, []string, error)
	// sub opens a subfolder that list gave.
	sub(name string) (treeDir, error)
	// stat is the size and time of a file of the folder, a link followed; ok false for a
	// folder or what cannot be read.
	stat(name string) (size int64, mod time.Time, ok bool)
	close()
}

// openTree opens the top folder of a cache tree, name, in the folder being read.
func openTree(folder Folder, name string) (treeDir, error) {
	if folder.Path != "" {
		return openOSTree(folder, name)
	}
	return fsDir{fsys: folder.FS, name: name}, nil
}

// fsDir is a folder of a cache tree in an fs.FS, by its path.
type fsDir struct {
	fsys fs.FS
	name string
}

func (d fsDir) list(dirs, files []string) ([]string, []string, error) {
	des, err := fs.ReadDir(d.fsys, d.name)
	if err != nil {
		return dirs, files, err
	}
	for _, de := range des {
		if de.IsDir() {
			dirs = append(dirs, de.Name())
		} else {
			files = append(files, de.Name())
		}
	}
	return dirs, files, nil
}

func (d fsDir) sub(name string) (treeDir, error) {
	return fsDir{fsys: d.fsys, name: path.Join(d.name, name)}, nil
}

func (d fsDir) stat(name string) (int64, time.Time, bool) {
	p := path.Join(d.name, name)
	info, err := fs.Lstat(d.fsys, p)
	if err == nil && info.Mode()&fs.ModeSymlink != 0 {
		info, err = fs.Stat(d.fsys, p)
	}
	if err != nil || info.IsDir() {
		return 0, time.Time{}, false
	}
	return info.Size(), info.ModTime(), true
}

func (fsDir) close() {}

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
// wait) with what it says of itself. It is asked first: opening a FIFO to read from it waits
// for a writer.
func openRegular(fsys fs.FS, name string) (fs.File, fs.FileInfo, error) {
	if st, err := fs.Stat(fsys, name); err != nil {
		return nil, nil, err
	} else if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s: not a regular file", name)
	}
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
