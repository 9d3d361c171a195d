package logscan

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
)

// DefaultBufSize is the read buffer of a Scanner. A physical line longer than this is scanned
// in pieces of this size (with a warning), so memory never grows with line length.
const DefaultBufSize = 1 << 20

// Options configure a Scanner.
type Options struct {
	// Marker, when set, makes the Scanner emit one Marker event at the first line it matches
	// (the warm-up boundary of --after).
	Marker *regexp.Regexp
	// BufSize overrides DefaultBufSize (tests use small values to exercise long lines).
	BufSize int
}

// anchors are the literals of which a line must contain at least one to be parsed at all.
// Every message the classifier knows contains one of them; see classify.
var anchors = [][]byte{
	[]byte("ompil"),        // compile, compilation, Compiling, Compiled, CompileTime
	[]byte("phase: "),      // Poplar "Starting phase:" / "Ending phase:"
	[]byte("xecutable"),    // PopART executables, "in executable cache"
	[]byte(".poplar_exec"), // TF-IPU cache files
	[]byte(".xla_engine"),  // TF-IPU cache files, SDK <= 1.4
	[]byte("ngine loaded"), // PopART "Engine loaded"
}

// Scanner reads one log and produces Events. It is not safe for concurrent use; scan several
// logs with several Scanners.
type Scanner struct {
	r    io.Reader
	name string
	opt  Options

	buf        []byte
	start, end int
	eof        bool
	err        error
	done       bool

	line       int // line number of buf[start]
	longWarned bool
	lastByte   byte

	pending []Event
	pi      int
	cur     Event

	stats       Stats
	markerFound bool
	nulWarned   bool
	utf8Warned  bool
	bar         barState
	next        []int // per anchor: next occurrence in the current region, or -1 if unknown
}

// NewScanner returns a Scanner reading r; name is used in events and warnings.
func NewScanner(r io.Reader, name string, opt Options) *Scanner {
	size := opt.BufSize
	if size <= 0 {
		size = DefaultBufSize
	}
	return &Scanner{r: r, name: name, opt: opt, buf: make([]byte, size), line: 1,
		next: make([]int, len(anchors))}
}

// Scan advances to the next event. It returns false at the end of the input or on a read error.
func (s *Scanner) Scan() bool {
	for s.pi >= len(s.pending) {
		if s.done {
			return false
		}
		s.pending = s.pending[:0]
		s.pi = 0
		s.step()
	}
	s.cur = s.pending[s.pi]
	s.pi++
	return true
}

// Event returns the event found by the last call to Scan.
func (s *Scanner) Event() Event { return s.cur }

// Err returns the first read error, or nil at a clean end of input.
func (s *Scanner) Err() error { return s.err }

// Stats returns what the Scanner has read so far; complete once Scan has returned false.
func (s *Scanner) Stats() Stats { return s.stats }

func (s *Scanner) warn(line int, format string, args ...any) {
	s.stats.WarningCount++
	if len(s.stats.Warnings) < MaxWarnings {
		s.stats.Warnings = append(s.stats.Warnings, Warning{File: s.name, Line: line, Message: fmt.Sprintf(format, args...)})
	}
}

// step reads more input and processes every complete line in the buffer.
func (s *Scanner) step() {
	if s.start > 0 {
		n := copy(s.buf, s.buf[s.start:s.end])
		s.start, s.end = 0, n
	}
	for !s.eof && s.end < len(s.buf) {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		s.stats.Bytes += int64(n)
		if err == io.EOF {
			s.eof = true
		} else if err != nil {
			s.err = fmt.Errorf("%s: %w", s.name, err)
			s.eof = true
		}
		if n > 0 && bytes.IndexByte(s.buf[s.end-n:s.end], '\n') >= 0 {
			break
		}
	}
	data := s.buf[s.start:s.end]
	var region []byte
	switch {
	case s.eof:
		region = data
	default:
		if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
			region = data[:i+1]
		} else if s.end == len(s.buf) {
			region = data // a line longer than the buffer: scan this piece on its own
			if !s.longWarned {
				s.warn(s.line, "line is longer than %d bytes: scanned in pieces", len(s.buf))
				s.longWarned = true
			}
		} else {
			return // need more input
		}
	}
	s.processRegion(region)
	s.start += len(region)
	if len(region) > 0 {
		s.lastByte = region[len(region)-1]
	}
	if s.eof && s.start >= s.end {
		s.finish()
	}
}

func (s *Scanner) finish() {
	s.done = true
	if s.stats.Bytes > 0 && s.lastByte != '\n' {
		s.stats.Lines++ // the unterminated last line
		s.warn(s.line, "input does not end with a newline: the last line may be truncated")
	}
	if s.bar.active {
		s.warn(s.bar.beginLine, "PopTorch graph compilation still in progress at the end of the log")
	}
}

// processRegion finds the candidate lines of region (a run of whole lines, or one piece of an
// over-long line) and parses them.
func (s *Scanner) processRegion(region []byte) {
	if !s.nulWarned {
		if i := bytes.IndexByte(region, 0); i >= 0 {
			s.nulWarned = true
			s.warn(s.line+bytes.Count(region[:i], []byte{'\n'}), "binary data (NUL byte): not a text log?")
		}
	}
	for i, a := range anchors {
		s.next[i] = indexFrom(region, a, 0)
	}
	marker := -1
	if s.opt.Marker != nil && !s.markerFound {
		if loc := s.opt.Marker.FindIndex(region); loc != nil {
			marker = loc[0]
		}
	}
	counted, line := 0, s.line
	lineAt := func(pos int) int {
		line += bytes.Count(region[counted:pos], []byte{'\n'})
		counted = pos
		return line
	}
	pos := 0
	for {
		q := -1
		for i, n := range s.next {
			if n >= 0 && (q < 0 || n < q) {
				q = n
				if i == 0 && isCompilerWord(region, n) { // "compiler" in a source path: skip it
					s.next[0] = indexFrom(region, anchors[0], n+len(anchors[0]))
					q = -2
					break
				}
			}
		}
		if q == -2 {
			continue
		}
		if marker >= 0 && (q < 0 || marker <= q) {
			ls := bytes.LastIndexByte(region[:marker], '\n') + 1
			s.markerFound = true
			s.pending = append(s.pending, Event{Kind: Marker, File: s.name, Line: lineAt(ls)})
			marker = -1
			continue
		}
		if q < 0 {
			break
		}
		ls := bytes.LastIndexByte(region[:q], '\n') + 1
		if ls < pos {
			ls = pos
		}
		le := len(region)
		if j := bytes.IndexByte(region[q:], '\n'); j >= 0 {
			le = q + j
		}
		s.parseLine(region[ls:le], lineAt(ls))
		pos = le + 1
		for i, n := range s.next {
			if n >= 0 && n < pos {
				s.next[i] = indexFrom(region, anchors[i], pos)
			}
		}
	}
	startLine := s.line
	s.line = lineAt(len(region))
	s.stats.Lines += s.line - startLine
	if len(region) > 0 && region[len(region)-1] == '\n' {
		s.longWarned = false
	}
}

// isCompilerWord reports whether the "ompil" at i is part of "compiler", which appears in every
// TensorFlow source path and says nothing about compilation.
func isCompilerWord(b []byte, i int) bool {
	j := i + len("ompil")
	return j+2 <= len(b) && b[j] == 'e' && b[j+1] == 'r'
}

func indexFrom(b, sep []byte, from int) int {
	if from >= len(b) {
		return -1
	}
	i := bytes.Index(b[from:], sep)
	if i < 0 {
		return -1
	}
	return from + i
}

// parseLine splits one physical line at carriage returns (progress-bar redraws, CRLF) and
// parses each piece.
func (s *Scanner) parseLine(line []byte, lineNo int) {
	for len(line) > 0 {
		seg := line
		if i := bytes.IndexByte(line, '\r'); i >= 0 {
			seg, line = line[:i], line[i+1:]
		} else {
			line = nil
		}
		if len(seg) > 0 {
			s.parseSegment(seg, lineNo)
		}
	}
}
