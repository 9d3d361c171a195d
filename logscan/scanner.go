package logscan

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/recomp/recomp/internal/textutil"
)

// DefaultBufSize is the read buffer of a Scanner. A physical line longer than this is scanned
// in pieces of this size (with a warning), so memory never grows with line length.
const DefaultBufSize = 1 << 20

// Options configure a Scanner.
type Options struct {
	// Grammar is the frameworks whose messages the Scanner reads (frameworks.Grammar() has all of
	// recomp's); without one it reads none.
	Grammar *Grammar
	// Marker, when set, makes the Scanner emit one Marker event at the first line it matches
	// (the warm-up boundary of --after), in each process of the log (each rank of a log that
	// holds several).
	Marker *LineRegexp
	// BufSize overrides DefaultBufSize (tests use small values to exercise long lines).
	BufSize int
	// ReadAhead makes the Scanner read and prefilter the next part of the input in a goroutine
	// of its own while it parses the current part: the same events, sooner where a CPU is
	// free. The goroutine ends at the end of the input; call Close when the Scanner may be
	// dropped before that.
	ReadAhead bool
	// KeepRepeats emits an event that repeats the one before it (which the Scanner otherwise
	// drops as a record printed twice) marked Repeat: a reader that can tell the processes of
	// a log apart decides whether it is a second process's.
	KeepRepeats bool
}

// Scanner reads one log and produces Events. It is not safe for concurrent use; scan several
// logs with several Scanners.
type Scanner struct {
	r    io.Reader
	name string
	opt  Options
	g    *Grammar

	buf        []byte
	start, end int
	eof        bool
	err        error
	done       bool

	line       int // line number of buf[start]
	longWarned bool
	lastByte   byte
	tail       []byte // the unterminated last line (its last maxTail bytes), at the end of input

	pending []Event
	pi      int
	cur     Event

	stats      Stats
	nulWarned  bool
	utf8Warned bool
	sniffed    bool          // the start of the input was checked for binary data
	spans      []span        // candidate lines of the current region
	swept      []span        // lines of the current region holding a sweep word and no anchor
	heldAt     []int         // starts of the current region's lines read into a held record
	parts      []partScratch // scratch for the parallel prefilter
	filter     *prefilter    // the grammar's, adapted to the log once its first large region is read
	ahead      *readAhead    // with Options.ReadAhead, once the first Scan has started it
	starts     []int         // scratch for recordStarts
	contexts   []*Context    // the handlers' Contexts, reused: [0, depth) are in use (see context)
	depth      int

	// procState is the state of the process whose record is being read; procs holds one per
	// rank a launcher's prefix named ("" for lines without one).
	*procState
	procs      map[string]*procState
	ranked     bool // some line carried a rank
	markersOut int  // Marker events emitted
	unreadAt   int  // the last line counted as unread
}

// procState is what a Scanner follows within the output of one process: records that span
// several lines, framework state between records. A log in which a launcher interleaved the
// output of several ranks has one per rank, so that one rank's lines never complete or break
// another's records.
type procState struct {
	rank        string
	markerFound bool
	held        *heldRecord // a multi-line record whose lines are still being read
	last        Event       // the last event emitted, to drop a record printed twice
	lastOwn     bool        // the last event's stamp was its record's own
	hasLast     bool
	heldIdle    int   // lines of other ranks read while this rank holds a record
	fwState     []any // each framework's state (Framework.NewState), by its index in the grammar
}

// MaxRanks bounds the processes a Scanner follows in one log. The lines of further ranks are
// not read, never merged into another rank's process (where their first compilations would
// count as recompilations): Stats.RankLinesLeftOut counts them, with a warning.
const MaxRanks = 4096

// use makes the process of rank the current one. It says false for a rank past MaxRanks, whose
// line is then left out (counted).
func (s *Scanner) use(rank string) bool {
	if s.procState != nil && s.rank == rank {
		return true
	}
	p := s.procs[rank]
	if p == nil {
		if len(s.procs) >= MaxRanks+1 { // the unranked process and MaxRanks ranks
			if s.stats.RankLinesLeftOut == 0 {
				s.warn(s.line, "more than %d ranks in one log: the lines of the others are not read", MaxRanks)
			}
			s.stats.RankLinesLeftOut++
			return false
		}
		p = &procState{rank: rank}
		s.procs[rank] = p
	}
	if rank != "" {
		s.ranked = true
	}
	s.procState = p
	return true
}

// NewScanner returns a Scanner reading r; name is used in events and warnings.
func NewScanner(r io.Reader, name string, opt Options) *Scanner {
	size := opt.BufSize
	if size <= 0 {
		size = DefaultBufSize
	}
	root := &procState{}
	g := opt.Grammar
	if g == nil {
		g = &Grammar{filter: emptyFilter}
	}
	return &Scanner{r: r, name: name, opt: opt, g: g, buf: make([]byte, size), line: 1, procState: root,
		procs: map[string]*procState{"": root}}
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
	if s.opt.ReadAhead {
		s.stepAhead()
		return
	}
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
	if s.eof && len(region) > 0 && region[len(region)-1] != '\n' {
		t := region[bytes.LastIndexByte(region, '\n')+1:]
		s.tail = append(s.tail[:0], t[max(0, len(t)-maxTail):]...)
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

// maxTail bounds what the Scanner keeps of an unterminated last line.
const maxTail = 4 << 10

func (s *Scanner) finish() {
	s.done = true
	for _, rank := range s.rankOrder() {
		s.use(rank)
		s.flushHeld()
		for i, fw := range s.g.frameworks {
			if fw.Finish != nil && s.fwState != nil && s.fwState[i] != nil {
				fw.Finish(&Context{s: s, fw: i, line: s.line})
			}
		}
	}
	if s.stats.Bytes > 0 && s.lastByte != '\n' {
		s.stats.Lines++ // the unterminated last line
		s.warn(s.line, "input does not end with a newline: the last line may be truncated")
		if s.g.beginsCompilation(s.tail) {
			s.stats.CutBegin = fmt.Sprintf("%s:%d: the log ends inside a line that begins a compilation: it was cut, or is still being written", s.name, s.stats.Lines)
		}
	}
}

// rankOrder lists the ranks the Scanner follows, in a fixed order.
func (s *Scanner) rankOrder() []string {
	out := make([]string, 0, len(s.procs))
	for r := range s.procs {
		out = append(out, r)
	}
	slices.SortFunc(out, compareRanks)
	return out
}

// compareRanks orders ranks as numbers where they are numbers.
func compareRanks(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

// processRegion finds the candidate lines of region (a run of whole lines, or one piece of an
// over-long line) and parses them. While a rank holds a multi-line record every line is read,
// candidate or not, so that its continuation lines are found among other ranks' lines.
func (s *Scanner) processRegion(region []byte) {
	s.sniff(region)
	var rs regionScan
	s.spans, s.swept, rs = s.prefilter(region).candidates(region, s.spans[:0], s.swept[:0], &s.parts, !s.nulWarned)
	s.parseRegion(region, s.spans, s.swept, rs)
}

// sniff checks the first region of the input for binary data.
func (s *Scanner) sniff(region []byte) {
	if !s.sniffed {
		s.sniffed = true
		if why := textutil.Binary(region); why != "" {
			s.stats.Binary = why
			s.warn(s.line, "binary data (%s): not a text log", why)
			s.nulWarned = true
		}
	}
}

// parseRegion parses the candidate lines of region (spans, found with rs by the prefilter), and
// while a rank holds a multi-line record, every line; then sweeps the lines holding a sweep word
// and no anchor (swept, found by the prefilter in the same pass).
func (s *Scanner) parseRegion(region []byte, spans, swept []span, rs regionScan) {
	if !s.nulWarned && rs.nul >= 0 {
		s.nulWarned = true
		s.warn(s.line+bytes.Count(region[:rs.nul], []byte{'\n'}), "binary data (NUL byte): not a text log?")
	}
	markers := s.findMarkers(region)
	s.heldAt = s.heldAt[:0]
	counted, line := 0, s.line
	lineAt := func(pos int) int {
		line += bytes.Count(region[counted:pos], []byte{'\n'})
		counted = pos
		return line
	}
	// spanLine is lineAt for a candidate line, from the count candidates made: no counting here.
	spanLine := func(sp span) int {
		if sp.start >= counted {
			counted, line = sp.start, s.line+sp.nl
		}
		return line
	}
	mi, si := 0, 0
	for pos := 0; pos < len(region); {
		if s.anyHeld() {
			// a line at a time until no rank holds a record
			end := indexByteFrom(region, '\n', pos)
			if end < 0 {
				end = len(region)
			}
			for mi < len(markers) && markers[mi].at <= pos {
				s.markerEvent(lineAt(markers[mi].at), markers[mi].rank)
				mi++
			}
			for si < len(spans) && spans[si].start < pos {
				si++
			}
			candidate := si < len(spans) && spans[si].start == pos
			if s.continueHeld(region[pos:end], candidate) {
				s.heldAt = append(s.heldAt, pos)
			} else if candidate {
				s.parseLine(region[pos:spans[si].end], spanLine(spans[si]))
			}
			if candidate {
				si++
			}
			pos = end + 1
			continue
		}
		for si < len(spans) && spans[si].start < pos {
			si++
		}
		if si == len(spans) {
			break
		}
		sp := spans[si]
		si++
		for mi < len(markers) && markers[mi].at <= sp.start {
			s.markerEvent(lineAt(markers[mi].at), markers[mi].rank)
			mi++
		}
		s.parseLine(region[sp.start:sp.end], spanLine(sp))
		pos = sp.end + 1
	}
	for ; mi < len(markers); mi++ {
		s.markerEvent(lineAt(markers[mi].at), markers[mi].rank)
	}
	s.sweepRegion(region, swept)
	s.line += rs.newlines
	s.stats.Lines += rs.newlines
	if len(region) > 0 && region[len(region)-1] == '\n' {
		s.longWarned = false
	}
}

// prefilter is the prefilter for region: the grammar's, adapted to the log (prefilter.adapt)
// once a region of adaptMin bytes or more is read.
func (s *Scanner) prefilter(region []byte) *prefilter {
	if s.filter == nil && len(region) >= adaptMin {
		s.filter = s.g.filter.adapt(region)
	}
	if s.filter == nil {
		return s.g.filter
	}
	return s.filter
}

// anyHeld says whether some rank holds a multi-line record.
func (s *Scanner) anyHeld() bool {
	if s.held != nil {
		return true
	}
	if len(s.procs) == 1 {
		return false
	}
	for _, p := range s.procs {
		if p.held != nil {
			return true
		}
	}
	return false
}

func (s *Scanner) markerEvent(line int, rank string) {
	if !s.use(rank) {
		return
	}
	if s.markerFound {
		return
	}
	s.markerFound = true
	s.markersOut++
	s.pending = append(s.pending, Event{Kind: Marker, File: s.name, Line: line, Rank: rank})
}

// parseLine splits one physical line at carriage returns (progress-bar redraws, CRLF) and
// parses each piece. The timestamp and rank that a launcher or recomp run put before the
// line hold for each of its pieces.
func (s *Scanner) parseLine(line []byte, lineNo int) {
	var outer header
	for first := true; len(line) > 0; first = false {
		seg := line
		if i := bytes.IndexByte(line, '\r'); i >= 0 {
			seg, line = line[:i], line[i+1:]
		} else {
			line = nil
		}
		if len(seg) > 0 {
			o := s.parseSegment(seg, lineNo, outer)
			if first {
				outer = o
			}
		}
	}
}

func indexByteFrom(b []byte, c byte, from int) int {
	if j := bytes.IndexByte(b[from:], c); j >= 0 {
		return from + j
	}
	return -1
}
