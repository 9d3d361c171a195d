package cache

import (
	"container/heap"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Entry kinds of an executable cache.
const (
	EntryTFIPU     = "tf-ipu"      // <hex>.poplar_exec
	EntryTFIPUOld  = "tf-ipu-sdk1" // <hex>.xla_engine (SDK <= 1.4)
	EntryLock      = "lock"        // <hex>.compile_lock, <hex>.read_lock
	EntryPopEF     = "popart"      // <decimal>.popef
	EntryPopARTOld = "popart-sdk2" // <decimal>.popart (SDK 2.0-2.4)
	EntryJAX       = "jax"         // <name>-<sha256>[-cache|-atime]
	EntryOther     = "other"
)

var (
	reTFIPU  = regexp.MustCompile(`^[0-9a-f]{1,16}\.(poplar_exec|xla_engine|xla_engine\.poplar_exec|compile_lock|read_lock)$`)
	rePopART = regexp.MustCompile(`^\d+\.(popef|popart)$`)
	reJAX    = regexp.MustCompile(`^.+-[0-9a-f]{64}(-cache|-atime)?$`)
)

// ClassifyEntry says what kind of cache entry a file name is.
func ClassifyEntry(name string) string {
	if m := reTFIPU.FindStringSubmatch(name); m != nil {
		switch m[1] {
		case "poplar_exec":
			return EntryTFIPU
		case "xla_engine", "xla_engine.poplar_exec":
			return EntryTFIPUOld
		}
		return EntryLock
	}
	if m := rePopART.FindStringSubmatch(name); m != nil {
		if m[1] == "popef" {
			return EntryPopEF
		}
		return EntryPopARTOld
	}
	if reJAX.MatchString(name) {
		return EntryJAX
	}
	return EntryOther
}

// CacheEntry is one file of an executable cache.
type CacheEntry struct {
	Dir, Name string
	Kind      string
	Size      int64
	ModTime   time.Time
	Hit       bool // a log says the run loaded it
	Written   bool // a log says the run wrote it
	Missed    bool // a log looked it up and did not find it
}

// Used reports whether any log touched the entry.
func (e *CacheEntry) Used() bool { return e.Hit || e.Written || e.Missed }

// Inventory is what one or more cache folders hold.
type Inventory struct {
	Entries     []*CacheEntry // the touched entries and the first MaxListed others, by name
	Count       int
	Bytes       int64
	Unused      int
	UnusedBytes int64
	ByKind      map[string]int
	Dirs        int // subfolders, not descended into
	// MissingMisses are paths a log missed and that are not in the folders now.
	MissingMisses []string
	Warnings      []string
}

// MaxListed bounds how many untouched entries an Inventory keeps; all are counted.
const MaxListed = 1000

// LogUse is what the logs say about cache files, by base name.
type LogUse struct {
	Hits, Writes, Misses map[string]bool
}

// NewLogUse returns an empty LogUse.
func NewLogUse() LogUse {
	return LogUse{Hits: map[string]bool{}, Writes: map[string]bool{}, Misses: map[string]bool{}}
}

// Add records one cache event of a log: kind is cache_hit, cache_write or cache_miss.
func (u LogUse) Add(kind, path string) {
	if path == "" {
		return
	}
	base := filepath.Base(path)
	switch kind {
	case "cache_hit":
		u.Hits[base] = true
	case "cache_write":
		u.Writes[base] = true
	case "cache_miss":
		u.Misses[base] = true
	}
}

// Take reads cache folders without changing them. Folders are read in batches, so memory is
// bounded by MaxListed and the log, whatever the number of entries.
func Take(dirs []string, use LogUse) (*Inventory, error) {
	inv := &Inventory{ByKind: map[string]int{}}
	present := map[string]bool{}
	for _, dir := range dirs {
		st, err := os.Stat(dir)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("%s: not a folder", dir)
		}
		f, err := os.Open(dir)
		if err != nil {
			return nil, err
		}
		keep := &nameHeap{}
		for {
			batch, err := f.ReadDir(512)
			for _, de := range batch {
				if de.IsDir() {
					inv.Dirs++
					continue
				}
				info, ierr := de.Info()
				if ierr != nil {
					inv.Warnings = append(inv.Warnings, fmt.Sprintf("%s: %v", filepath.Join(dir, de.Name()), ierr))
					continue
				}
				if info.Mode()&os.ModeSymlink != 0 {
					if ti, serr := os.Stat(filepath.Join(dir, de.Name())); serr != nil {
						inv.Warnings = append(inv.Warnings, fmt.Sprintf("%s: broken or looping link: %v", filepath.Join(dir, de.Name()), serr))
						continue
					} else {
						info = ti
					}
				}
				e := &CacheEntry{Dir: dir, Name: de.Name(), Kind: ClassifyEntry(de.Name()), Size: info.Size(), ModTime: info.ModTime()}
				key := entryKey(e.Name, e.Kind)
				e.Hit, e.Written, e.Missed = use.Hits[key], use.Writes[key], use.Misses[key]
				present[key] = true
				inv.Count++
				inv.Bytes += e.Size
				inv.ByKind[e.Kind]++
				if !e.Used() && e.Kind != EntryLock {
					inv.Unused++
					inv.UnusedBytes += e.Size
				}
				if e.Used() {
					inv.Entries = append(inv.Entries, e)
				} else {
					heap.Push(keep, e)
					if keep.Len() > MaxListed {
						heap.Pop(keep)
					}
				}
			}
			if errors.Is(err, io.EOF) || (err == nil && len(batch) == 0) {
				break
			}
			if err != nil {
				f.Close()
				return nil, fmt.Errorf("%s: %v", dir, err)
			}
		}
		f.Close()
		inv.Entries = append(inv.Entries, *keep...)
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
	return inv, nil
}

// entryKey is the name logs use for an entry: JAX logs the cache key, and stores it as
// KEY-cache (with KEY-atime beside it when access times are kept).
func entryKey(name, kind string) string {
	if kind == EntryJAX {
		name = strings.TrimSuffix(strings.TrimSuffix(name, "-cache"), "-atime")
	}
	return name
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
