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

	"github.com/recomp/recomp/runner"
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
		osf, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		st, err := osf.Stat()
		if err != nil {
			osf.Close()
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

// ReadAll reads the input at path whole (as Open opens it) into memory, at most max bytes: a
// larger input, compressed or not, is an error.
func ReadAll(path string, stdin io.Reader, max int64) ([]byte, error) {
	f, err := Open(path, stdin)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if !f.Gzip && f.Info != nil && f.Info.Mode().IsRegular() && f.Info.Size() > 0 && f.Info.Size() < max {
		buf.Grow(int(f.Info.Size()) + bytes.MinRead) // one allocation for a plain file
	}
	if _, err := buf.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if int64(buf.Len()) > max {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, max)
	}
	return buf.Bytes(), nil
}

// RunLog is the log to read for path: the run.log of a run folder of recomp run, else path.
func RunLog(path string) string {
	if path == Stdin {
		return path
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		if f, ok := runner.OpenFolder(path); ok {
			return f.Log
		}
	}
	return path
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
