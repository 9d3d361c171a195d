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
	spans       []span      // candidate lines of the current region
	parts       [][]span    // scratch for the parallel prefilter
	starts      []int       // scratch for recordStarts
	held        *heldRecord // a multi-line record whose lines are still being read
	ptxla       ptxlaState
	last        Event // the last event emitted, to drop a record printed twice
	hasLast     bool
	tfTraced    map[string]bool // TF functions seen traced (the first trace is not a retrace)
	tfInputs    string          // TF device compiler: num_inputs of the compilation it is about to make
}

// NewScanner returns a Scanner reading r; name is used in events and warnings.
func NewScanner(r io.Reader, name string, opt Options) *Scanner {
	size := opt.BufSize
	if size <= 0 {
		size = DefaultBufSize
	}
	return &Scanner{r: r, name: name, opt: opt, buf: make([]byte, size), line: 1}
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
	s.flushHeld()
	s.ptxlaFlush()
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
	s.spans = anchorFilter.candidates(region, s.spans[:0], &s.parts)
	marker := -1
	if s.opt.Marker != nil && !s.markerFound {
		if loc := s.opt.Marker.FindIndex(region); loc != nil {
			marker = bytes.LastIndexByte(region[:loc[0]], '\n') + 1
		}
	}
	counted, line := 0, s.line
	lineAt := func(pos int) int {
		line += bytes.Count(region[counted:pos], []byte{'\n'})
		counted = pos
		return line
	}
	next := s.continueHeld(region, 0)
	for _, sp := range s.spans {
		if sp.start < next {
			continue // an indented line of a held event
		}
		if marker >= 0 && marker <= sp.start {
			s.markerEvent(lineAt(marker))
			marker = -1
		}
		s.parseLine(region[sp.start:sp.end], lineAt(sp.start))
		next = s.continueHeld(region, sp.end+1)
	}
	if marker >= 0 {
		s.markerEvent(lineAt(marker))
	}
	startLine := s.line
	s.line = lineAt(len(region))
	s.stats.Lines += s.line - startLine
	if len(region) > 0 && region[len(region)-1] == '\n' {
		s.longWarned = false
	}
}

func (s *Scanner) markerEvent(line int) {
	s.markerFound = true
	s.pending = append(s.pending, Event{Kind: Marker, File: s.name, Line: line})
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
