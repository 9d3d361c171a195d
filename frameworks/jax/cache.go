package jax

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/internal/lazyre"
	"github.com/recomp/recomp/internal/openfile"
)

// A JAX persistent-cache entry, <module>-<sha256>-cache, is the compile time (4 bytes, a
// big-endian count of whole seconds) followed by the serialised executable, compressed with
// zstandard when JAX found it (Python 3.14's compression.zstd or the zstandard package) and zlib
// otherwise (jax/_src/compilation_cache.py combine_executable_and_time, compress_executable).
// The compile time is what a hit on the entry saves (JAX's own metric compile_time_saved_sec
// is it less the time to read the entry).

// ErrZstd says an entry is zstandard-compressed, which recomp does not decompress.
var ErrZstd = errors.New("zstandard-compressed: recomp reads the compile time of zlib entries only")

// entryNames are the files of JAX's persistent cache: <name>-<sha256>-cache, and
// <name>-<sha256>-atime beside it when access times are kept.
var entryNames = lazyre.New(`^[A-Za-z0-9_.\-]+-[0-9a-f]{64}(-cache|-atime)?$`)

// entryKey is the name logs use for an entry: JAX logs the cache key, and stores it as
// KEY-cache (with KEY-atime beside it when access times are kept).
func entryKey(name string) string {
	return strings.TrimSuffix(strings.TrimSuffix(name, "-cache"), "-atime")
}

// persistentCache is JAX's persistent compilation cache.
type persistentCache struct{}

var _ framework.KeyedCache = persistentCache{}

// EntryFile is the file of a JAX persistent-cache key in a cache folder; false when the key
// (which comes from a log) could name a file outside the folder: a separator, "..", a NUL byte.
func (persistentCache) EntryFile(dir, key string) (string, bool) { return EntryFile(dir, key) }

// CompileTime reads the compile time JAX stored in an entry.
func (persistentCache) CompileTime(path string) (time.Duration, error) { return CompileTime(path) }

// ShortKey shortens a JAX cache key (MODULE-SHA256) to its module and the hash's first 12 digits.
func (persistentCache) ShortKey(k string) string {
	if i := strings.LastIndexByte(k, '-'); i >= 0 && len(k)-i-1 == 64 {
		return k[:i+13] + "…"
	}
	return k
}

// Part says what a part of the key jax._src.cache_key logs the hash of is about.
func (persistentCache) Part(name string) framework.KeyPart {
	switch name {
	case "computation":
		return framework.KeyGraph
	case "XLA flags":
		return framework.KeyFlags
	case "jax_lib version", "backend version":
		return framework.KeyVersions
	}
	return framework.KeyOther
}

// Words are JAX's words for the reasons of a miss.
func (persistentCache) Words() framework.CacheWords { return cacheWords }

var cacheWords = framework.CacheWords{
	FlagsPart:     "XLA flags",
	Keys:          "JAX's cache keys",
	KeyLog:        "JAX's cache-key log",
	KeyLogSetting: "JAX_DEBUG_LOG_MODULES=jax._src.cache_key",
	Eviction:      "JAX's LRU eviction with jax_compilation_cache_max_size",
	Stored:        "the compile time JAX stored in the entry, whole seconds",
	WhyNotWritten: "JAX says why only with JAX_EXPLAIN_CACHE_MISSES=1",
	Unreadable:    "a different jaxlib or backend, or a damaged file",
	OutsideGraph:  "XLA flags, compile options, the jaxlib or backend version or the devices",
	Advice: map[string]string{
		"key_changed_outside_graph": "keep the compile flags (XLA_FLAGS, LIBTPU_INIT_ARGS and --xla* arguments), compile options, jaxlib and backend " +
			"versions and the devices the same between runs that share a cache",
		"never_written": "lower jax_persistent_cache_min_compile_time_secs and jax_persistent_cache_min_entry_size_bytes (JAX writes only " +
			"entries that took at least 1 s to compile by default), write from process 0, and initialise the cache before the first compilation",
		"evicted":    "raise jax_compilation_cache_max_size, or keep the cache folder between runs (a CI cache, a persistent volume)",
		"unreadable": "an entry written by another jaxlib or backend cannot be read: key the cache folder by version, or clear it after an upgrade",
	},
}

// EntryFile is the file of a JAX persistent-cache key in a cache folder; false when the key
// (which comes from a log) could name a file outside the folder: a separator, "..", a NUL byte.
func EntryFile(dir, key string) (string, bool) {
	name := key + "-cache"
	if key == "" || key == "." || key == ".." || strings.ContainsAny(key, "/\\\x00") || name != filepath.Base(name) {
		return "", false
	}
	return filepath.Join(dir, name), true
}

// CompileTime reads the compile time JAX stored in a persistent-cache entry (whole seconds:
// JAX truncates it). The entry must be a regular file: a FIFO or a device is never read.
func CompileTime(path string) (time.Duration, error) {
	f, _, err := openfile.Open(path, false)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	magic, _ := br.Peek(4)
	switch {
	case bytes.Equal(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return 0, fmt.Errorf("%s: %w", path, ErrZstd)
	case len(magic) < 2 || magic[0]&0x0f != 8 || (uint16(magic[0])<<8|uint16(magic[1]))%31 != 0:
		return 0, fmt.Errorf("%s: not a JAX cache entry (neither zlib nor zstandard data)", path)
	}
	zr, err := zlib.NewReader(br)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", path, err)
	}
	defer zr.Close()
	var t [4]byte
	if _, err := io.ReadFull(zr, t[:]); err != nil {
		return 0, fmt.Errorf("%s: %v", path, err)
	}
	return time.Duration(binary.BigEndian.Uint32(t[:])) * time.Second, nil
}
