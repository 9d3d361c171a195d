// Package cache takes the inventory of compile-cache folders (TF-IPU, PopART/PopTorch, JAX and
// PyTorch/XLA persistent caches, and the caches kept as folders of entries: Neuron's, vLLM's,
// Inductor's): what each entry is and holds, and with the logs of the runs that used them, which
// entries the runs hit, missed, wrote and could not read, and which no run touched; and why one
// cache's entries are not another's, by the parts of their keys.
//
// inventory.go reads the folders and the logs' use; tree.go walks the caches kept as folders
// (and reads what an entry is from its file, where its stack says how), on Linux with the
// system's calls from each folder's descriptor (walk_linux.go; walk_other.go elsewhere);
// compare.go holds one cache against another.
package cache

import (
	"container/heap"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/internal/input"
	"github.com/recomp/recomp/logscan"
)

// MaxListed bounds the untouched entries an Inventory lists (all are counted).
const MaxListed = 1000

// EntryKind says what kind of executable-cache entry a file is: a stack's kind (its unit
// names them: "tf-ipu", "popart", "jax", …; frameworks.CacheKinds), a lock, or EntryOther.
type EntryKind string

// EntryOther is a file that is no cache entry: never proposed for removal.
const EntryOther EntryKind = "other"

// Kinds are the kinds of entries in the order reports list them: the stacks' (executables,
// then locks), then EntryOther.
func Kinds() []EntryKind {
	var out []EntryKind
	for _, k := range frameworks.CacheKinds() {
		out = append(out, EntryKind(k))
	}
	return append(out, EntryOther)
}

// ClassifyEntry says what kind of cache entry a file name is.
func ClassifyEntry(name string) EntryKind {
	if kind, _, _ := frameworks.CacheEntry(name); kind != "" {
		return EntryKind(kind)
	}
	return EntryOther
}

// CacheEntry is one file of an executable cache.
type CacheEntry struct {
	Dir, Name string
	Kind      EntryKind
	Lock      bool // a lock beside the entries, not an executable
	Size      int64
	ModTime   time.Time
	Hit       bool // a log says the run loaded it
	Written   bool // a log says the run wrote it
	Missed    bool // a log looked it up and did not find it
	// Unreadable is the stack's words for a run that found the entry and could not read it
	// (PyTorch/XLA's PersistentCacheDeserializeFailure): it compiled the graph again.
	Unreadable string
	// Graph is the program the entry holds, where its head says ("" otherwise).
	Graph string
	// State is "" for a complete entry, else what is wrong with it (a cache tree's entries:
	// "partial", "locked", "failed", "corrupt", "foreign": not what the stack writes there).
	State string
	// Folder says the entry is a folder of a cache tree (Name is its path below Dir); Key is
	// the name logs give it, and Parts the parts of its key it spells out.
	Folder bool
	Key    string
	Parts  []framework.Factor

	tree *framework.CacheTree
	read string // the file of a folder entry its tree's Describe reads
}

// Used reports whether any log touched the entry.
func (e *CacheEntry) Used() bool { return e.Hit || e.Written || e.Missed || e.Unreadable != "" }

// Prunable reports whether the entry is a recognised executable (not a lock, not a foreign
// file) that no log touched: the only entries recomp ever proposes to remove.
func (e *CacheEntry) Prunable() bool {
	return !e.Used() && !e.Lock && e.Kind != EntryOther && !e.Folder
}

// Inventory is what one or more cache folders hold.
type Inventory struct {
	Entries     []*CacheEntry // the touched entries and the first MaxListed others, by name
	Count       int
	Bytes       int64
	Unused      int // recognised entries no log touched
	UnusedBytes int64
	Foreign     int // files that are not cache entries
	Damaged     int // entries of cache trees that are partial, locked, failed, corrupt or foreign
	ByKind      map[EntryKind]int
	Dirs        int // subfolders, not descended into
	// MissingMisses are paths a log missed and that are not in the folders now.
	MissingMisses []string
	// Missed are the keys the logs missed whose parts their records list, each held against the
	// cache's entry whose key agrees most (not the entry the run then wrote under that key):
	// why the run was not served by what the cache held. In key order.
	Missed   []*KeyComparison
	Warnings []string

	roots []treeRoot // the subfolders of the folder being read that are cache trees
}

// LogUse is what the logs say about cache entries, by the name logs give them (a file's base
// name, a cache key, a graph hash).
type LogUse struct {
	Hits, Writes, Misses map[string]bool
	// Compiled are the graph hashes the runs compiled (the entries a cache tree's stack wrote).
	Compiled map[string]bool
	// Unreadable are entries a run found and could not read (a deserialisation failure), by
	// base name, with the stack's words for it.
	Unreadable map[string]string
	// MissParts are, by key, the parts of each key a run's lookup missed, where its record lists
	// them (Inductor's FX-graph misses in a trace): what the cache's entries are held against.
	MissParts map[string][]logscan.KeyPart
}

// NewLogUse returns an empty LogUse.
func NewLogUse() LogUse {
	return LogUse{Hits: map[string]bool{}, Writes: map[string]bool{}, Misses: map[string]bool{}, Compiled: map[string]bool{},
		Unreadable: map[string]string{}, MissParts: map[string][]logscan.KeyPart{}}
}

// AddEvent records one event of a log: a cache event by the file it names, and by the graph
// hash it names when the path holds it as a folder (a cache tree's entry); a compilation by its
// hash.
func (u LogUse) AddEvent(ev logscan.Event) {
	if ev.Kind == logscan.CacheMiss && ev.Hash != "" && len(ev.KeyParts) > 0 && len(u.MissParts) < maxMissParts {
		u.MissParts[ev.Hash] = ev.KeyParts
	}
	switch {
	case ev.Hash == "":
	case ev.Kind == logscan.CompileBegin:
		if len(u.Compiled) < maxCounted {
			u.Compiled[ev.Hash] = true
		}
	case ev.Kind == logscan.FrameworkMetric && strings.Contains(ev.Path, ev.Hash+"/"):
		// a stack's count of a lookup that names the entry (Inductor's FX-graph misses in a
		// trace): missed, then compiled and written
		if len(u.Compiled) < maxCounted {
			u.Misses[ev.Hash], u.Compiled[ev.Hash] = true, true
		}
		return
	case strings.Contains(ev.Path, ev.Hash+"/"):
		u.Add(ev.Kind, ev.Hash)
		return
	}
	u.Add(ev.Kind, ev.Path)
}

// Add records one cache event of a log.
func (u LogUse) Add(kind logscan.Kind, p string) {
	if p == "" {
		return
	}
	base := p
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		base = p[i+1:]
	}
	switch kind {
	case logscan.CacheHit:
		u.Hits[base] = true
	case logscan.CacheWrite:
		u.Writes[base] = true
	case logscan.CacheMiss:
		u.Misses[base] = true
	}
}

// Folder is one cache folder: Name is how it is shown (the path a user gave), FS reads it
// (os.DirFS(path) for a real folder). Path, when set, is the folder on disk that FS reads: its
// cache trees are then walked with the system's calls (OSFolder).
type Folder struct {
	Name string
	FS   fs.FS
	Path string
}

// OSFolder is the cache folder at path on disk, shown as given.
func OSFolder(path string) Folder { return Folder{Name: path, FS: os.DirFS(path), Path: path} }

// ReadLogUse reads what the logs at paths say about cache files ("-" is stdin, gzip is read
// transparently). A log that breaks off part-way counts up to there.
func ReadLogUse(paths []string, stdin io.Reader) (LogUse, error) {
	use := NewLogUse()
	if err := input.CheckStdin(paths); err != nil {
		return use, err
	}
	for _, p := range paths {
		f, err := input.OpenLog(p, stdin)
		if err != nil {
			return use, err
		}
		s := logscan.NewScanner(f, p, logscan.Options{Grammar: frameworks.Grammar()})
		var counted countedUse
		for s.Scan() {
			ev := s.Event()
			use.AddEvent(ev)
			counted.add(ev)
		}
		f.Close()
		counted.apply(use)
	}
	return use, nil
}

// countedUse is, for a stack whose log names no entry but counts its cache's hits, misses and
// read failures (PyTorch/XLA's metrics report), the graphs one log compiled and ran, by its
// keyed cache, and the last value of each counter.
type countedUse struct {
	compiled, ran map[string]framework.KeyedCache // graph hash → its stack's cache
	counts        map[string]int
}

func (c *countedUse) add(ev logscan.Event) {
	switch ev.Kind {
	case logscan.CompileBegin, logscan.Execution:
		kc := frameworks.KeyedCacheOf(ev.Producer)
		if ev.Hash == "" || kc == nil || kc.Words().MissMetric == "" {
			return
		}
		if c.compiled == nil {
			c.compiled, c.ran = map[string]framework.KeyedCache{}, map[string]framework.KeyedCache{}
		}
		if ev.Kind == logscan.CompileBegin {
			c.compiled[ev.Hash] = kc
		} else if len(c.ran) < maxCounted {
			c.ran[ev.Hash] = kc
		}
	case logscan.FrameworkMetric:
		if c.counts == nil {
			c.counts = map[string]int{}
		}
		c.counts[ev.Detail] = ev.Count
	}
}

// maxCounted bounds the graphs of one log kept for the counters.
const maxCounted = 1 << 16

// apply says what the log did with the entries of its graphs, as its counters allow: a graph
// it compiled was missed (then written), or found and not read when every lookup that did not
// hit failed that way; a graph it ran without compiling was a hit when the counters show hits.
func (c *countedUse) apply(use LogUse) {
	for hash, kc := range c.compiled {
		w := kc.Words()
		fails, misses := c.counts[w.ReadFailureMetric], c.counts[w.MissMetric]
		switch {
		case fails > 0 && misses == 0:
			use.Unreadable[hash] = fmt.Sprintf("%s %d", w.ReadFailureMetric, fails)
			use.Writes[hash] = true
		case misses > 0 || fails > 0:
			use.Misses[hash] = true
		}
	}
	for hash, kc := range c.ran {
		if _, compiled := c.compiled[hash]; !compiled && c.counts[kc.Words().HitMetric] > 0 {
			use.Hits[hash] = true
		}
	}
}

// Take reads cache folders without changing them. Folders are read in batches, so memory is
// bounded by MaxListed and the logs, whatever the number of entries.
func Take(folders []Folder, use LogUse) (*Inventory, error) {
	inv := &Inventory{ByKind: map[EntryKind]int{}}
	present := map[string]bool{}
	for _, folder := range folders {
		if err := inv.read(folder, use, present); err != nil {
			return nil, err
		}
	}
	sort.Slice(inv.Entries, func(i, j int) bool {
		a, b := inv.Entries[i], inv.Entries[j]
		if a.Dir != b.Dir {
			return a.Dir < b.Dir
		}
		return a.Name < b.Name
	})
	for name := range use.Misses {
		if !present[name] {
			inv.MissingMisses = append(inv.MissingMisses, name)
		}
	}
	sort.Strings(inv.MissingMisses)
	inv.Missed = missedAgainst(inv.Entries, use.MissParts)
	return inv, nil
}

func (inv *Inventory) read(folder Folder, use LogUse, present map[string]bool) error {
	f, err := folder.FS.Open(".")
	if err != nil {
		return fmt.Errorf("%s: %w", folder.Name, unwrapPath(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s: %w", folder.Name, unwrapPath(err))
	}
	dir, ok := f.(fs.ReadDirFile)
	if !st.IsDir() || !ok {
		return fmt.Errorf("%s: not a folder", folder.Name)
	}
	keep := &nameHeap{}
	first := len(inv.Entries)
	for {
		batch, err := dir.ReadDir(512)
		for _, de := range batch {
			inv.add(folder, de, use, present, keep)
		}
		if errors.Is(err, io.EOF) || (err == nil && len(batch) == 0) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", folder.Name, unwrapPath(err))
		}
	}
	inv.Entries = append(inv.Entries, *keep...)
	for _, e := range inv.Entries[first:] {
		e.Graph = readGraph(folder.FS, e.Name)
	}
	inv.readTrees(folder, use, present)
	return nil
}

// readGraph reads the program a listed entry holds from its head, where its kind says.
func readGraph(fsys fs.FS, name string) string {
	return frameworks.CacheGraph(name, func() []byte {
		f, _, err := openRegular(fsys, name) // a FIFO or a device is never read
		if err != nil {
			return nil
		}
		defer f.Close()
		head := make([]byte, framework.CacheHeadBytes)
		n, _ := io.ReadFull(f, head)
		return head[:n]
	})
}

func (inv *Inventory) add(folder Folder, de fs.DirEntry, use LogUse, present map[string]bool, keep *nameHeap) {
	if de.IsDir() {
		inv.dir(de.Name())
		return
	}
	name := de.Name()
	info, err := de.Info()
	if err == nil && de.Type()&fs.ModeSymlink != 0 {
		info, err = fs.Stat(folder.FS, name) // follow it; a loop or a dangling link is a warning
		if err != nil {
			err = fmt.Errorf("broken or looping link: %w", unwrapPath(err))
		}
	}
	if err != nil {
		inv.Warnings = append(inv.Warnings, fmt.Sprintf("%s: %v", path.Join(folder.Name, name), err))
		return
	}
	if info.IsDir() {
		inv.dir(name)
		return
	}
	kind, key, lock := frameworks.CacheEntry(name)
	e := CacheEntry{Dir: folder.Name, Name: name, Kind: EntryKind(kind), Lock: lock, Size: info.Size(), ModTime: info.ModTime(), Key: key}
	if kind == "" {
		e.Kind, e.Key = EntryOther, ""
	}
	e.Hit, e.Written, e.Missed, e.Unreadable = use.Hits[key], use.Writes[key], use.Misses[key], use.Unreadable[key]
	if e.Missed {
		present[key] = true
	}
	inv.Count++
	inv.Bytes += e.Size
	inv.ByKind[e.Kind]++
	switch {
	case e.Kind == EntryOther:
		inv.Foreign++
	case e.Prunable():
		inv.Unused++
		inv.UnusedBytes += e.Size
	}
	if e.Used() {
		inv.Entries = append(inv.Entries, clone(e))
		return
	}
	if keep.Len() == MaxListed && name >= (*keep)[0].Name {
		return // not among the first MaxListed names: counted, not kept
	}
	heap.Push(keep, clone(e))
	if keep.Len() > MaxListed {
		heap.Pop(keep)
	}
}

// clone is e on the heap: an entry only counted is never made there.
func clone(e CacheEntry) *CacheEntry { return &e }

// unwrapPath drops the path an fs.PathError repeats (the folder is named by the caller).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// nameHeap keeps the entries with the smallest names (a max-heap on name).
type nameHeap []*CacheEntry

func (h nameHeap) Len() int           { return len(h) }
func (h nameHeap) Less(i, j int) bool { return h[i].Name > h[j].Name }
func (h nameHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *nameHeap) Push(x any)        { *h = append(*h, x.(*CacheEntry)) }
func (h *nameHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
