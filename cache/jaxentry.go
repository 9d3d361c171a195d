package cache

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

// JAXEntryPath is the file of a JAX persistent-cache key in a cache folder; false when the key
// (which comes from a log) could name a file outside the folder: a separator, "..", a NUL byte.
func JAXEntryPath(dir, key string) (string, bool) {
	name := key + "-cache"
	if key == "" || key == "." || key == ".." || strings.ContainsAny(key, "/\\\x00") || name != filepath.Base(name) {
		return "", false
	}
	return filepath.Join(dir, name), true
}

// JAXCompileTime reads the compile time JAX stored in a persistent-cache entry (whole seconds:
// JAX truncates it). The entry must be a regular file: a FIFO or a device is never read.
func JAXCompileTime(path string) (time.Duration, error) {
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
