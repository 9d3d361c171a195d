package runner

import (
	"bytes"
	"io"
	"regexp/syntax"
	"strings"
	"sync"
	"time"

	"github.com/recomp/recomp/internal/lazyre"
)

// Quiet says which lines of the command's output recomp switched on (a framework's compile
// logging) and so keeps out of the terminal: they still go to run.log. Lines that match one of
// Lines are quiet, and with Continued the indented lines that follow a quiet line too (the
// explanation under JAX's TRACING CACHE MISS); so are empty lines next to a quiet line (the
// framework's blank lines around a record: PyTorch/XLA's "\nComputation hash: …\n\n"; a launcher's
// tag alone, "[default1]:", is an empty line).
type Quiet struct {
	Lines     []*lazyre.Regexp
	Continued []bool // per expression: its lines continue on indented lines

	once sync.Once
	// needs are, per expression, literals one of which a line must contain to match it (nil:
	// none known); most of a program's lines contain none, and cost a few byte searches.
	needs [][][]byte
}

func (q *Quiet) compile() {
	q.needs = make([][][]byte, len(q.Lines))
	for i, re := range q.Lines {
		if strings.HasPrefix(re.String(), "^") {
			continue // anchored: it fails on a line's first bytes
		}
		if tree, err := syntax.Parse(re.String(), syntax.Perl); err == nil {
			for _, lit := range requiredLiterals(tree.Simplify()) {
				q.needs[i] = append(q.needs[i], []byte(lit))
			}
		}
	}
}

// mayMatch says whether line contains one of the literals expression i needs.
func (q *Quiet) mayMatch(i int, line []byte) bool {
	if q.needs[i] == nil {
		return true
	}
	for _, lit := range q.needs[i] {
		if bytes.Contains(line, lit) {
			return true
		}
	}
	return false
}

// minLiteral is the shortest literal worth searching for before running an expression.
const minLiteral = 4

// requiredLiterals returns literals one of which every match of re contains, nil when it
// cannot tell (or a literal would be shorter than minLiteral, and so no cheaper to look for).
func requiredLiterals(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 || len(string(re.Rune)) < minLiteral {
			return nil
		}
		return []string{string(re.Rune)}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []string
		for _, sub := range re.Sub { // the child whose shortest literal is the longest
			if lits := requiredLiterals(sub); lits != nil && (best == nil || shortest(lits) > shortest(best)) {
				best = lits
			}
		}
		return best
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			lits := requiredLiterals(sub)
			if lits == nil {
				return nil
			}
			all = append(all, lits...)
		}
		return all
	}
	return nil
}

func shortest(lits []string) int {
	n := len(lits[0])
	for _, l := range lits[1:] {
		n = min(n, len(l))
	}
	return n
}

// quiet says whether a whole line is quiet; cont is whether the line before was a quiet line
// that continues, and the result's second value whether this one does.
func (q *Quiet) quiet(line []byte, cont bool) (bool, bool) {
	line = line[tagLen(line):]
	if cont && len(line) > 2 && line[0] == ' ' && line[1] == ' ' {
		return true, true
	}
	q.once.Do(q.compile)
	for i, re := range q.Lines {
		if q.mayMatch(i, line) && re.Match(line) {
			return true, q.Continued[i]
		}
	}
	return false, false
}

// reTag is a launcher's tag at the start of a line of a job's console: torchrun's (torch
// elastic's log line prefix [${role_name}${local_rank}]:, "[default0]:", "[rank2]:") and Open
// MPI's mpirun --tag-output ("[1,0]<stderr>:").
var reTag = lazyre.New(`^(?:\[[A-Za-z_-]{0,32}\d{1,9}\]:|\[\d{1,9},\d{1,9}\]<std(?:out|err|diag)>:)`)

// tagLen is the length of the launcher's tag a line starts with (0 when none): a tagged line is
// quiet when the line without its tag is, so a launcher's copy of the compile logging recomp
// switched on stays out of the terminal as the untagged one does.
func tagLen(line []byte) int {
	if len(line) < 4 || line[0] != '[' {
		return 0
	}
	if loc := reTag.FindIndex(line); loc != nil {
		return loc[1]
	}
	return 0
}

// gluedAt finds a quiet record glued after the program's own output on one line (a progress
// bar's last frame has no line end, so the next record a framework prints follows it: "loss:
// 1.1589I0000 00:00:1795514674.274491 …"): where it starts, or -1. A record starts at a capital
// letter after a character that cannot end a word, or after a colour code.
func (q *Quiet) gluedAt(line []byte) int {
	q.once.Do(q.compile)
	for i := tagLen(line) + 1; i < len(line); i++ { // a record right after a launcher's tag is the line's own
		if c := line[i]; c < 'A' || c > 'Z' {
			continue
		}
		if prev := line[i-1]; prev|0x20 >= 'a' && prev|0x20 <= 'z' || prev == '_' {
			if !endsInColour(line[:i]) {
				continue
			}
		}
		for _, re := range q.Lines {
			// An expression not anchored at the line's start already failed on the whole line,
			// so on every part of it: only anchored ones are tried, each a few bytes' work.
			if strings.HasPrefix(re.String(), "^") && re.Match(line[i:]) {
				return i
			}
		}
	}
	return -1
}

// endsInColour says whether b ends in a terminal colour code (ESC [ … m).
func endsInColour(b []byte) bool {
	i := bytes.LastIndexByte(b, 0x1b)
	if i < 0 || i+2 >= len(b) || b[i+1] != '[' || b[len(b)-1] != 'm' {
		return false
	}
	for _, c := range b[i+2 : len(b)-1] {
		if (c < '0' || c > '9') && c != ';' {
			return false
		}
	}
	return true
}

// quietWriter passes the command's output to the terminal without the quiet lines. It holds
// the start of a line until it can tell: the line's end, a carriage return (a progress bar's
// frame, passed at once), or holdFor without more output (a prompt waiting for input).
type quietWriter struct {
	mu   sync.Mutex
	w    io.Writer
	q    *Quiet
	line []byte // the current line, not yet written
	// bounds are where in line a write of the command began (after its first byte): a
	// program's partial line ("step 0: ") and a record a framework printed after it are two
	// writes, so only the part from a boundary on can be the record.
	bounds  []int
	cont    bool
	blanks  []byte // empty lines held until the next line says whether they border a quiet one
	after   bool   // the last line was quiet
	timer   *time.Timer
	holdFor time.Duration
}

// maxHeld bounds the part of a line held back: a longer line is passed on.
const maxHeld = 64 << 10

func newQuietWriter(w io.Writer, q *Quiet) *quietWriter {
	return &quietWriter{w: w, q: q, holdFor: 100 * time.Millisecond}
}

func (qw *quietWriter) Write(p []byte) (int, error) {
	qw.mu.Lock()
	defer qw.mu.Unlock()
	n := len(p)
	if len(qw.line) > 0 && qw.line[len(qw.line)-1] == '\r' && len(p) > 0 && p[0] != '\n' {
		qw.frame() // a carriage return held at the end of the last write was a bar's frame
	}
	if len(qw.line) > 0 && len(p) > 0 && len(qw.bounds) < maxBounds {
		qw.bounds = append(qw.bounds, len(qw.line))
	}
	for len(p) > 0 {
		i := bytes.IndexAny(p, "\r\n")
		if i < 0 {
			qw.line = append(qw.line, p...)
			if len(qw.line) > maxHeld {
				qw.flushLocked()
			}
			break
		}
		qw.line = append(qw.line, p[:i+1]...)
		p = p[i+1:]
		switch {
		case p0(qw.line) == '\n': // a line's end (\n or \r\n, as a pseudo-terminal writes it)
			body := bytes.TrimRight(qw.line, "\r\n")
			if len(body) == 0 || tagLen(body) == len(body) { // a launcher's tag alone is an empty line
				qw.blank()
				qw.reset()
				continue
			}
			quiet, cont := qw.q.quiet(body, qw.cont)
			if quiet {
				qw.blanks = qw.blanks[:0]
				if at := qw.ownPart(body); at > 0 {
					// The program's own partial line, a record recomp switched on glued after
					// it: only the record stays out.
					qw.w.Write(body[:at])
					quiet, cont = qw.q.quiet(body[at:], false)
				}
			} else {
				qw.passBlanks()
				if at := qw.q.gluedAt(body); at > 0 {
					qw.w.Write(body[:at]) // a bar's last frame, its line left open as the program left it
					quiet, cont = qw.q.quiet(body[at:], false)
				} else {
					qw.w.Write(qw.line)
				}
			}
			qw.cont, qw.after = cont, quiet
			qw.reset()
		case len(p) == 0: // a carriage return at the end: a line's end or a frame, later
		case p[0] != '\n':
			qw.frame()
		}
	}
	qw.arm()
	return n, nil
}

// blank takes an empty line (qw.line): after a quiet line it is quiet; else it is held until
// the next line (a few at most).
func (qw *quietWriter) blank() {
	if qw.after {
		return
	}
	if len(qw.blanks) >= 2*maxBlanks {
		qw.passBlanks()
	}
	qw.blanks = append(qw.blanks, qw.line...)
}

// maxBlanks is how many empty lines in a row are held: more are the program's own.
const maxBlanks = 4

// passBlanks writes the empty lines held.
func (qw *quietWriter) passBlanks() {
	if len(qw.blanks) > 0 {
		qw.w.Write(qw.blanks)
		qw.blanks = qw.blanks[:0]
	}
}

// p0 is the last byte of b.
func p0(b []byte) byte { return b[len(b)-1] }

// frame passes on a progress bar's frame (the line up to a carriage return): what follows is
// still the same line.
func (qw *quietWriter) frame() {
	qw.passBlanks()
	qw.after = false
	qw.w.Write(qw.line)
	qw.reset()
}

// arm passes on what is held when no more output comes for a while.
func (qw *quietWriter) arm() {
	if len(qw.line) == 0 && len(qw.blanks) == 0 {
		return
	}
	if qw.timer == nil {
		qw.timer = time.AfterFunc(qw.holdFor, func() {
			qw.mu.Lock()
			defer qw.mu.Unlock()
			qw.flushLocked()
		})
		return
	}
	qw.timer.Reset(qw.holdFor)
}

func (qw *quietWriter) flushLocked() {
	qw.passBlanks()
	if len(qw.line) > 0 {
		qw.after = false
		qw.w.Write(qw.line)
		qw.reset()
	}
}

// reset starts a new line.
func (qw *quietWriter) reset() {
	qw.line, qw.bounds = qw.line[:0], qw.bounds[:0]
}

// maxBounds bounds the write boundaries kept for one line.
const maxBounds = 64

// ownPart finds, in a quiet line, the program's own bytes before the record: the first write
// boundary from which the rest of the line is still quiet on its own. Where the two came in one
// read, the record starts at a capital letter after a character that cannot end a word (or a
// colour code), the first from which the rest is quiet, unless what comes before it is a log
// record's own header (a level and a ':' or ']' before the message: the record's message, not
// its start). 0 when there is none: the whole line is the record.
func (qw *quietWriter) ownPart(body []byte) int {
	if qw.q.recordAt(body) {
		return 0 // a record from its first byte ("Post Compilation Analysis: …" holds another's start)
	}
	for _, at := range qw.bounds {
		if at >= len(body) {
			break
		}
		// A read of the terminal can end inside a record ("DEB", "UG:…"): the rest must be a
		// record from its start.
		if qw.q.recordAt(body[at:]) {
			return qw.before(body, at)
		}
	}
	for i := 1; i < len(body); i++ {
		if c := body[i]; c < 'A' || c > 'Z' || !startsRecord(body, i) {
			continue
		}
		if qw.q.recordAt(body[i:]) {
			return qw.before(body, i)
		}
	}
	return 0
}

// recordAt says whether text is a quiet record from its first byte: an expression matches it
// there, or after a record header of its own (a level word or a date first: "WARNING:…:236: ").
func (q *Quiet) recordAt(text []byte) bool {
	q.once.Do(q.compile)
	for i, re := range q.Lines {
		if !q.mayMatch(i, text) {
			continue
		}
		if loc := re.FindIndex(text); loc != nil && (loc[0] == 0 || headerFirst.Match(text[:loc[0]]) && recordHeader.Match(text[:loc[0]])) {
			return true
		}
	}
	return false
}

// headerFirst is how a record's own header begins: a level word, a glog/absl letter and date,
// or a date.
var headerFirst = lazyre.New(`^(?:(?i:debug|info|warn|warning|error|critical|fatal)\b|[IWEF]\d{4} |\d{4}-\d\d-\d\d)`)

// startsRecord says whether a record can start at body[i]: after a character that cannot end a
// word, or after a colour code.
func startsRecord(body []byte, i int) bool {
	prev := body[i-1]
	return !(prev|0x20 >= 'a' && prev|0x20 <= 'z' || prev >= '0' && prev <= '9' || prev == '_') || endsInColour(body[:i])
}

// before is where the program's own part of a quiet line ends when the rest, from at, is quiet:
// at, unless what comes before is quiet too, a log record's own header, or a launcher's tag
// (then the whole line is the record: 0; a bare tag left on the terminal glues the next line's
// to it: "[rank3]:[rank1]:…").
func (qw *quietWriter) before(body []byte, at int) int {
	if own, _ := qw.q.quiet(body[:at], qw.cont); own || recordHeader.Match(body[:at]) || tagLen(body) == at {
		return 0
	}
	return at
}

// recordHeader is the start of a log record before its message: a level word (Python's
// logging, absl) or a glog/absl letter and date, ending in ':', ']' or '|' before the message.
var recordHeader = lazyre.New(`(?i)(?:\b(?:debug|info|warn|warning|error|critical|fatal)\b|^[IWEF]\d{4} ).*[\]:|]\s*$`)

// Close passes on what is held (the output ended).
func (qw *quietWriter) Close() {
	qw.mu.Lock()
	defer qw.mu.Unlock()
	if qw.timer != nil {
		qw.timer.Stop()
	}
	if len(qw.line) > 0 {
		quiet, _ := qw.q.quiet(qw.line, qw.cont)
		if quiet {
			qw.blanks = qw.blanks[:0]
			if at := qw.ownPart(qw.line); at > 0 {
				qw.w.Write(qw.line[:at])
			}
		} else {
			qw.passBlanks()
			qw.w.Write(qw.line)
		}
		qw.reset()
	}
	qw.passBlanks()
}
