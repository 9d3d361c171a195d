// Package input opens what recomp reads, the same way for logs, dumps and HLO files: a path,
// "-" for standard input (which can be read once), gzip data (known by its magic bytes, whatever
// the name) decompressed as it is read, a cap on what is read into memory, and a run folder of
// recomp run in place of its run.log.
package input

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"time"

	"github.com/recomp/recomp/internal/openfile"
	"github.com/recomp/recomp/runfolder"
)

// Stdin is the path that names standard input.
const Stdin = "-"

// ErrFolder is the error (wrapped, naming the path) Open returns for a folder.
var ErrFolder = errors.New("is a folder")

// File is an opened input: its data (decompressed when it was gzip), and the file behind it.
type File struct {
	io.Reader
	// Info describes the file opened (nil for standard input).
	Info fs.FileInfo
	// Gzip says the data is decompressed gzip.
	Gzip bool

	closer io.Closer
}

// Close closes the file behind the input (standard input is left open).
func (f *File) Close() error { return f.closer.Close() }

// Open opens path for reading: "-" is stdin (an error when stdin is nil), a folder is an error
// wrapping ErrFolder, and gzip data is decompressed. The caller closes the result. An error
// from the file system is returned as it is (an *fs.PathError).
func Open(path string, stdin io.Reader) (*File, error) {
	f := &File{}
	var r io.Reader
	if path == Stdin {
		if stdin == nil {
			return nil, fmt.Errorf("%s: no standard input", path)
		}
		r, f.closer = stdin, io.NopCloser(nil)
	} else {
		osf, st, err := openfile.Open(path, true)
		if err != nil {
			return nil, err
		}
		if st.IsDir() {
			osf.Close()
			return nil, fmt.Errorf("%s: %w", path, ErrFolder)
		}
		r, f.closer, f.Info = osf, osf, st
	}
	br := bufio.NewReaderSize(r, 64<<10)
	f.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		f.Reader, f.Gzip = zr, true
	}
	return f, nil
}

// OpenLog is Open for a log: a folder is named "not a log file".
func OpenLog(path string, stdin io.Reader) (*File, error) {
	f, err := Open(path, stdin)
	if errors.Is(err, ErrFolder) {
		return nil, fmt.Errorf("%s: is a directory, not a log file", path)
	}
	return f, err
}

// DefaultMaxBytes is the most ReadAll reads of one input, plain or as gzip inflates it: an
// HLO module is read whole (and parsed into about 2.6 times its size), so a larger file is
// refused with an error rather than exhausting memory. Logs are streamed and have no cap.
const DefaultMaxBytes = 512 << 20

// TooLargeError is a file over the cap: plain, or inflating to more (a gzip bomb is refused
// after inflating it into nothing, never into memory).
type TooLargeError struct {
	Path     string
	Cap      int64
	Inflated bool
}

func (e *TooLargeError) Error() string { return e.Path + ": " + e.Reason() }

// Reason is the error without the path.
func (e *TooLargeError) Reason() string {
	what := "larger than"
	if e.Inflated {
		what = "inflates (gzip) to more than"
	}
	return fmt.Sprintf("%s %s, the most recomp reads of one HLO file", what, mib(e.Cap))
}

func mib(n int64) string {
	if n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + " MiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// ReadAll reads one input whole (an HLO module): "-" reads stdin, gzip data (by its magic bytes) is
// decompressed. A file of more than limit bytes, plain or inflated, is a *TooLargeError; a
// regular gzip file is inflated twice, first only to count its size, so what a bomb inflates
// to is never held in memory.
func ReadAll(path string, stdin io.Reader, limit int64) ([]byte, error) {
	return readAll(path, stdin, limit, true)
}

// ReadFound is ReadAll for a file found inside a folder (not named by the user): it must be a
// regular file (internal/openfile's rule: a FIFO or a device is an error wrapping
// openfile.ErrNotRegular, never waited on).
func ReadFound(path string, limit int64) ([]byte, error) {
	return readAll(path, nil, limit, false)
}

func readAll(path string, stdin io.Reader, limit int64, named bool) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	if path == "-" {
		if stdin == nil {
			return nil, fmt.Errorf("-: no standard input")
		}
		return readCapped(path, bufio.NewReaderSize(stdin, 64<<10), 0, limit)
	}
	f, st, err := openfile.Open(path, named)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.IsDir() {
		return nil, fmt.Errorf("%s: is a folder", path)
	}
	regular := st.Mode().IsRegular()
	bufSize := 64 << 10
	if regular && st.Size() < int64(bufSize) {
		bufSize = int(st.Size()) + 16 // (a 64 KB buffer for each of 100 000 small modules adds up)
	}
	br := bufio.NewReaderSize(f, bufSize)
	if !isGzip(br) {
		if regular && st.Size() > limit {
			return nil, &TooLargeError{Path: path, Cap: limit}
		}
		size := int64(0)
		if regular {
			size = st.Size()
		}
		return readCapped(path, br, size, limit)
	}
	if !regular { // a pipe cannot be read twice: inflate once, up to the cap
		return readCapped(path, br, 0, limit)
	}
	n, err := inflate(path, br, io.Discard, limit)
	if err != nil {
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	br.Reset(f)
	return readCapped(path, br, n, limit)
}

func isGzip(br *bufio.Reader) bool {
	magic, _ := br.Peek(2)
	return len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b
}

// inflate copies what the gzip stream r inflates to into w, up to limit bytes (a
// *TooLargeError beyond), and returns how many bytes that was.
func inflate(path string, r io.Reader, w io.Writer, limit int64) (int64, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", path, err)
	}
	n, err := io.Copy(w, io.LimitReader(zr, limit+1))
	if err != nil {
		return n, fmt.Errorf("%s: %v", path, err)
	}
	if n > limit {
		return n, &TooLargeError{Path: path, Cap: limit, Inflated: true}
	}
	return n, nil
}

// readCapped reads r (inflating gzip) into memory, sized for size bytes when known, refusing
// more than limit.
func readCapped(path string, br *bufio.Reader, size, limit int64) ([]byte, error) {
	var buf bytes.Buffer
	if size > 0 {
		buf.Grow(int(size) + bytes.MinRead) // one allocation when the size is known
	}
	if isGzip(br) {
		if _, err := inflate(path, br, &buf, limit); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	if _, err := buf.ReadFrom(io.LimitReader(br, limit+1)); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if int64(buf.Len()) > limit {
		return nil, &TooLargeError{Path: path, Cap: limit}
	}
	return buf.Bytes(), nil
}

// RunLog is the log to read for path: the run.log of a run folder of recomp run, else path.
func RunLog(path string) string {
	if path == Stdin {
		return path
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		if f, ok := runfolder.Open(path); ok {
			return f.Log
		}
	}
	return path
}

// RunTrace is the folder of the stacks' trace files of the run folder at path (its trace
// folder, or the user's own its manifest names), and the time its files must have been written
// at or after to be the run's (zero: every one): "" when path is no run folder or has none.
func RunTrace(path string) (string, time.Time) {
	if path == Stdin {
		return "", time.Time{}
	}
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		return "", time.Time{}
	}
	f, ok := runfolder.Open(path)
	if ok && f.Trace == "" && f.Manifest != "" {
		f, _, ok = runfolder.OpenManifest(path)
	}
	if !ok {
		return "", time.Time{}
	}
	return f.Trace, f.TraceSince
}

// CheckStdin refuses a list of inputs that names standard input more than once: it can be
// read once.
func CheckStdin(paths []string) error {
	n := 0
	for _, p := range paths {
		if p == Stdin {
			n++
		}
	}
	if n > 1 {
		return fmt.Errorf("'-' (standard input) is given %d times: it can be read once", n)
	}
	return nil
}

// Same says whether two inputs are one file (a run folder stands for its run.log): the same
// path, or paths that reach the same file. Standard input is never the same as a file.
func Same(a, b string) bool {
	if a == b {
		return true
	}
	if a == Stdin || b == Stdin {
		return false
	}
	sa, err1 := os.Stat(RunLog(a))
	sb, err2 := os.Stat(RunLog(b))
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
