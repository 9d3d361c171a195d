// Package openfile is the one rule for opening a file recomp reads: a path named on the command
// line may be anything that can be read (a named pipe, a device: the user asked for it), a file
// found inside a folder must be a regular file (a FIFO would block, a device never end, a socket
// cannot be opened), and every open is non-blocking, with the file's type taken from the open
// file (fstat), never from a name looked at earlier. JSON documents recomp reads whole (a run
// folder's manifest, a baseline) are capped in size.
package openfile

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
)

// ErrNotRegular is the error (wrapped, naming the file and its type) for a file found in a
// folder that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// Open opens path for reading. named says the user named it on the command line: then any
// file that can be read is opened as it is (a FIFO waits for its writer, as cat does); else it
// must be a regular file (after symbolic links), or the error wraps ErrNotRegular, and the open
// does not block (a FIFO without a writer) and its type is the open file's own (fstat). A folder
// is returned opened, for the caller to refuse or list.
func Open(path string, named bool) (*os.File, fs.FileInfo, error) {
	flag := os.O_RDONLY
	if !named {
		flag |= nonBlock
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !named && !st.Mode().IsRegular() && !st.IsDir() {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, TypeName(st.Mode()))}
	}
	return f, st, nil
}

// TypeName names a file's type the way a warning says it: "named pipe", "device", ….
func TypeName(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "regular file"
	case m.IsDir():
		return "folder"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	}
	return m.Type().String()
}

// Regular says whether path is a regular file (after symbolic links), without opening it; why
// not when it is not: the warning for a file skipped in a folder.
func Regular(path string) (bool, string) {
	st, err := os.Stat(path)
	if err != nil {
		return false, err.Error()
	}
	if !st.Mode().IsRegular() {
		return false, fmt.Sprintf("%s: skipped: %v (%s)", path, ErrNotRegular, TypeName(st.Mode()))
	}
	return true, ""
}

// TooLargeError is a JSON document over its cap.
type TooLargeError struct {
	Path string
	Size int64 // its size (-1: more than Cap, read as it came)
	Cap  int64
	What string
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: larger than %s, the most recomp reads of %s", e.Path, size(e.Cap), e.What)
}

func size(n int64) string {
	if n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + " MiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// ReadCapped reads a file whole: a regular file (named, or not: see Open) of at most max bytes,
// else a *TooLargeError (what names the document: "a manifest"). Nothing over the cap is ever
// held in memory, whatever the file claims its size is.
func ReadCapped(path string, named bool, max int64, what string) ([]byte, error) {
	f, st, err := Open(path, named)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.IsDir() {
		return nil, fmt.Errorf("%s: is a folder, not %s", path, what)
	}
	if st.Mode().IsRegular() && st.Size() > max {
		return nil, &TooLargeError{Path: path, Size: st.Size(), Cap: max, What: what}
	}
	// A regular file's size sizes the buffer (one allocation, the end seen in the read after
	// it): io.ReadAll's growth from 512 bytes allocates twice the file, and each page a short
	// command touches is a page fault of its start-up.
	hint := int64(512)
	if st.Mode().IsRegular() && st.Size() < max {
		hint = st.Size() + 1
	}
	b, err := readAll(io.LimitReader(f, max+1), make([]byte, 0, hint))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if int64(len(b)) > max {
		return nil, &TooLargeError{Path: path, Size: -1, Cap: max, What: what}
	}
	return b, nil
}

// readAll appends r's bytes to b until the end of r, as io.ReadAll does from b's capacity.
func readAll(r io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// ReadJSON reads a JSON document of at most max bytes into v (see ReadCapped); a syntax error
// names the file and line.
func ReadJSON(path string, named bool, max int64, what string, v any) error {
	b, err := ReadCapped(path, named, max, what)
	if err != nil {
		return err
	}
	// Trailing white space (a run folder's start manifest is padded to 64 KiB with spaces) is
	// cut before the decoder, which checks each byte of it.
	if err := json.Unmarshal(trimSpaceRight(b), v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("%s:%d: %v", path, lineOf(b, se.Offset), err)
		}
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}

func lineOf(b []byte, off int64) int {
	n := 1
	for i := int64(0); i < off && i < int64(len(b)); i++ {
		if b[i] == '\n' {
			n++
		}
	}
	return n
}

// trimSpaceRight is b without its trailing JSON white space, as bytes.TrimRight(b, " \t\r\n")
// cuts it, spaces eight at a time: that look-up of each byte in a set took 1.9 million
// instructions of the 64 KiB padding, a fifteenth of a pytest session's two calls.
func trimSpaceRight(b []byte) []byte {
	n := len(b)
	for n >= 8 && binary.LittleEndian.Uint64(b[n-8:n]) == 0x2020202020202020 {
		n -= 8
	}
	for n > 0 {
		if c := b[n-1]; c != ' ' && c != '\n' && c != '\t' && c != '\r' {
			break
		}
		n--
	}
	return b[:n]
}
