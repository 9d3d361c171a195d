// Package follow reads logs that another process is writing, by polling: each Poll reads what
// was appended since the last one, follows a file rotated by rename (the old file is read to
// its end, then the new one from its start), a file truncated in place (read again from its
// start), and in a folder the files that appear. It holds an open file and an offset per log,
// never the logs' contents: memory does not grow with the time it follows them.
package follow

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/recomp/recomp/internal/openfile"
	"github.com/recomp/recomp/internal/textutil"
)

// MaxRead bounds what one Poll reads from one file; the rest is read by the next Polls.
const MaxRead = 4 << 20

// MaxFiles bounds the files followed at once (each is an open file); more found in folders are
// left out, with a warning, and counted (LeftOut): what they hold is not read.
const MaxFiles = 256

// Chunk is what a Poll read from one log.
type Chunk struct {
	// Log names the log: the path given, or for a file found in a folder the path it had when
	// it was found. A file that replaced another of the same name (rotation) is the same log.
	Log string
	// Restart says the log began again before Data: it was truncated, or rotated and Data is
	// the new file's start. Whatever line was left open before is ended there.
	Restart bool
	Data    []byte
}

// Follower follows logs. It is not safe for concurrent use.
type Follower struct {
	targets []target
	files   []*file // in the order found
	buf     []byte
	warned  bool
	left    int // the most files a Poll's listing left out (MaxFiles)
}

// LeftOut says how many files found in folders were left out, at most, at one Poll, for
// MaxFiles were followed already (0 when none ever was): their lines were not read.
func (fl *Follower) LeftOut() int { return fl.left }

type target struct {
	path string
	dir  bool
}

// file is one open file: the log it belongs to, where reading stopped.
type file struct {
	log    string // the log's name
	path   string // its path now (a file in a folder may have been renamed)
	f      *os.File
	info   os.FileInfo
	off    int64
	tail   []byte // the last bytes read (up to tailLen): a file truncated and written again past off no longer has them there
	gone   bool   // renamed away or deleted: read to its end, then dropped
	binary bool   // found in a folder, binary data (a core file): skipped
	target int
}

// New follows paths: files (which may not exist yet) and folders (whose regular files are
// followed, those found later too; hidden and compressed files are left out, and so are binary
// files, by their first bytes (textutil.Binary), with a warning).
func New(paths []string) (*Follower, error) {
	fl := &Follower{buf: make([]byte, 256<<10)}
	for _, p := range paths {
		st, err := os.Stat(p)
		switch {
		case err == nil && st.IsDir():
			fl.targets = append(fl.targets, target{path: p, dir: true})
		case err == nil && !st.Mode().IsRegular():
			return nil, fmt.Errorf("%s: not a regular file or a folder", p)
		case err == nil || errors.Is(err, os.ErrNotExist):
			fl.targets = append(fl.targets, target{path: p})
		default:
			return nil, err
		}
	}
	return fl, nil
}

// Poll reads what the logs gained since the last Poll. Warnings say what could not be read
// (a file that vanished between listing and opening is not one).
func (fl *Follower) Poll() (chunks []Chunk, warnings []string) {
	left := 0
	for ti, t := range fl.targets {
		if t.dir {
			w, n := fl.list(ti, t)
			warnings, left = append(warnings, w...), left+n
		} else {
			warnings = append(warnings, fl.check(ti, t.path, t.path)...)
		}
	}
	fl.left = max(fl.left, left)
	keep := fl.files[:0]
	for _, f := range fl.files {
		var warning string
		if chunks, warning = fl.read(f, chunks); warning != "" {
			warnings = append(warnings, warning)
		}
		if f.gone {
			f.f.Close()
			continue
		}
		keep = append(keep, f)
	}
	clear(fl.files[len(keep):])
	fl.files = keep
	return chunks, warnings
}

// check looks at the file now at path, of log: a new file (the first, or one that replaced
// the one followed) is opened from its start, after the one it replaced is read to its end.
func (fl *Follower) check(ti int, path, log string) []string {
	st, err := os.Stat(path)
	if err != nil {
		return nil // not there (yet, or between a rotation's rename and create)
	}
	var cur *file
	for _, f := range fl.files {
		if f.target == ti && f.path == path && !f.gone {
			cur = f
		}
	}
	if cur != nil && os.SameFile(cur.info, st) {
		return nil
	}
	nf, info, err := openfile.Open(path, false) // regular files only: a FIFO put there would block
	if err != nil {
		return []string{err.Error()}
	}
	if cur != nil {
		cur.gone = true // read to its end below, before the new one
	}
	fl.files = append(fl.files, &file{log: log, path: path, f: nf, info: info, target: ti})
	return nil
}

// list looks at a folder's files: each regular file not followed yet is; a followed file that
// was renamed keeps its log; one that left the folder is read to its end and dropped. It says
// how many files it left out, MaxFiles being followed.
func (fl *Follower) list(ti int, t target) ([]string, int) {
	ents, err := os.ReadDir(t.path)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", t.path, err)}, 0
	}
	left := 0
	var warnings []string
	seen := make([]bool, len(fl.files))
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") || compressed(name) {
			continue
		}
		p := filepath.Join(t.path, name)
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		found := false
		for i, f := range fl.files {
			if f.target == ti && !f.gone && os.SameFile(f.info, st) {
				f.path, seen[i], found = p, true, true
			}
		}
		if found {
			continue
		}
		if len(fl.files) >= MaxFiles {
			left++
			if !fl.warned {
				fl.warned = true
				warnings = append(warnings, fmt.Sprintf("%s: more than %d files: the others are not followed", t.path, MaxFiles))
			}
			continue
		}
		// A new file: the continuation of the log that had its name (rotation: the old file,
		// renamed, is still followed as that log until it leaves the folder), else a log of
		// its own.
		log := p
		nf, info, err := openfile.Open(p, false)
		if err != nil {
			warnings = append(warnings, err.Error())
			continue
		}
		fl.files = append(fl.files, &file{log: log, path: p, f: nf, info: info, target: ti})
	}
	for i := range seen {
		if f := fl.files[i]; f.target == ti && !seen[i] {
			f.gone = true // deleted, or moved out of the folder
		}
	}
	return warnings, left
}

func compressed(name string) bool {
	return slices.Contains([]string{".gz", ".bz2", ".xz", ".zst", ".zip", ".lz4"}, filepath.Ext(name))
}

// read reads what f gained, at most MaxRead; a file shorter than what was read of it was
// truncated, and is read again from its start. A file found in a folder whose first bytes are
// binary data is skipped from then on, with a warning.
func (fl *Follower) read(f *file, chunks []Chunk) ([]Chunk, string) {
	if f.binary {
		return chunks, ""
	}
	restart := f.off == 0 && fl.started(f)
	if st, err := f.f.Stat(); err == nil && (st.Size() < f.off || !fl.sameTail(f)) {
		f.off, f.tail, restart = 0, f.tail[:0], true
		f.f.Seek(0, io.SeekStart)
	}
	var data []byte
	for len(data) < MaxRead {
		n, err := f.f.Read(fl.buf)
		if n > 0 {
			data = append(data, fl.buf[:n]...)
			f.off += int64(n)
		}
		if err != nil || n == 0 {
			break
		}
	}
	if f.off == int64(len(data)) && len(data) > 0 && fl.targets[f.target].dir {
		if why := textutil.Binary(data); why != "" {
			f.binary = true
			return chunks, fmt.Sprintf("%s: skipped: binary data (%s), not a log", f.path, why)
		}
	}
	if len(data) >= tailLen {
		f.tail = append(f.tail[:0], data[len(data)-tailLen:]...)
	} else if len(data) > 0 {
		f.tail = append(f.tail, data...)
		f.tail = f.tail[max(0, len(f.tail)-tailLen):]
	}
	if len(data) > 0 || restart {
		chunks = append(chunks, Chunk{Log: f.log, Restart: restart, Data: data})
	}
	return chunks, ""
}

// tailLen is how many of the last bytes read are checked again at each Poll.
const tailLen = 64

// sameTail says whether the bytes before f's offset are still the ones read there: a file
// truncated and written again past the offset between two Polls has others.
func (fl *Follower) sameTail(f *file) bool {
	if len(f.tail) == 0 {
		return true
	}
	b := fl.buf[:len(f.tail)]
	n, _ := f.f.ReadAt(b, f.off-int64(len(f.tail)))
	return n == len(b) && bytes.Equal(b, f.tail)
}

// started says whether another file of f's log was read before (f replaced it).
func (fl *Follower) started(f *file) bool {
	if f.off != 0 || f.info == nil {
		return false
	}
	for _, o := range fl.files {
		if o != f && o.log == f.log && o.off > 0 {
			return true
		}
	}
	return false
}

// Close closes the files.
func (fl *Follower) Close() {
	for _, f := range fl.files {
		f.f.Close()
	}
	fl.files = nil
}
