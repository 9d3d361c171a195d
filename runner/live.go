package runner

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"
)

// Live reads run.log while it is written: recomp run's live lines and its stop at a
// recompilation. Run calls it with the log's mutex held, from one goroutine at a time.
type Live interface {
	// Log takes whole lines of run.log as they are written (each with its arrival time), the
	// first of them line number first (counted from 1); it returns what to say on the terminal,
	// each note after the log line it names. It returns once the lines are read.
	Log(lines []byte, first int64) []Note
	// Stop says why the command should be stopped now ("" to let it run); asked after each Log.
	Stop() string
}

// Note is a line for the terminal, said after line After of run.log: between the program's
// lines, never inside one.
type Note struct {
	After int64
	Text  string // ends with a newline
}

// DefaultStopGrace is how long a command stopped at a recompilation has after SIGINT, and then
// after SIGTERM, before it is killed.
const DefaultStopGrace = 5 * time.Second

// prepareLive gives the line log a tap for opt.Live and returns the writer of its notes; with
// OwnGroup the command gets a process group of its own, and a Ctrl-C is passed on to it.
func prepareLive(opt *Options, cmd *exec.Cmd, lw *lineLog) *noteWriter {
	if opt.OwnGroup {
		ownGroup(cmd)
		opt.ForwardInterrupt = true
	}
	if opt.Live == nil {
		return &noteWriter{}
	}
	lw.tap = &liveTap{live: opt.Live}
	nw := &noteWriter{mu: &sync.Mutex{}, notes: opt.Notes}
	if nw.notes == nil {
		nw.notes = io.Discard
	}
	return nw
}

// newStopper is the stopper of the started command p, which the Live's tap calls.
func newStopper(p *os.Process, opt Options, lw *lineLog) *stopper {
	s := &stopper{p: p, own: opt.OwnGroup, grace: opt.StopGrace, exited: make(chan struct{})}
	if s.grace <= 0 {
		s.grace = DefaultStopGrace
	}
	if lw.tap != nil {
		lw.mu.Lock()
		lw.tap.stop = s.stop
		lw.mu.Unlock()
	}
	return s
}

// follow makes the sinks remember whether what reached the terminal left a line open, so that
// a note never starts inside one (the quiet writer may leave one open: a progress bar's frame,
// a glued record's start).
func (nw *noteWriter) follow(sinks []io.Writer) {
	if nw.mu == nil {
		return // no Live
	}
	for i := range sinks {
		le := &lineEnds{w: sinks[i]}
		nw.ends = append(nw.ends, le)
		sinks[i] = le
	}
}

// sayLast says what the Live made of the last lines, once the output ended, and the notes that
// still waited for a line to end.
func (nw *noteWriter) sayLast(lw *lineLog) {
	if lw.tap != nil {
		nw.write(io.Discard, nil, lw.tap.place(0))
	}
	if nw.mu != nil {
		nw.mu.Lock()
		nw.release(true)
		nw.mu.Unlock()
	}
}

// liveTap is what the line log keeps for a Live: the lines of the write in progress, where each
// ends in the write's bytes, and the notes they gave.
type liveTap struct {
	live  Live
	lines []byte
	first int64
	ends  []int // per line of lines: the offset in the write's bytes just after its end
	notes []Note
	stop  func(why string, line int64)
}

// noted are the pieces of one write of the command's output, and the notes said between them.
type noted struct {
	at   int // offset in the write's bytes
	text string
}

// place turns the notes of a write into offsets of its bytes: a note after a line that
// ended in this write goes after that line's end; one after an earlier line at the start.
func (t *liveTap) place(n int) []noted {
	if len(t.notes) == 0 {
		t.ends = t.ends[:0]
		return nil
	}
	out := make([]noted, 0, len(t.notes))
	for _, note := range t.notes {
		i := note.After - t.first
		at := 0
		switch {
		case i >= int64(len(t.ends)):
			at = n
		case i >= 0:
			at = t.ends[i]
		}
		out = append(out, noted{at: at, text: note.Text})
	}
	t.notes, t.ends = t.notes[:0], t.ends[:0]
	return out
}

// read gives the lines gathered to the Live.
func (t *liveTap) read() {
	if len(t.lines) == 0 {
		return
	}
	t.notes = append(t.notes, t.live.Log(t.lines, t.first)...)
	last := t.first + int64(bytes.Count(t.lines, []byte{'\n'})) - 1 // run.log's line the Live read to
	t.lines = t.lines[:0]
	if why := t.live.Stop(); why != "" && t.stop != nil {
		t.stop(why, last)
	}
}

// noteWriter writes the command's output and the notes said between its lines: the notes to
// their own writer, never inside a line of the output. A note that comes while a line of the
// program's text is open on the terminal ("step 3 ... " before its "done") waits until that
// line ends, at most maxHold; then, or after output that left a progress bar's frame open, it
// starts on a new line.
type noteWriter struct {
	mu    *sync.Mutex
	notes io.Writer
	ends  []*lineEnds // what reached the terminal, per stream
	// held are the notes waiting for heldOn's open line to end, in order; holding says there
	// are some (read without mu); timer writes them when the wait is over.
	held    []string
	heldOn  *lineEnds
	holding atomic.Bool
	timer   *time.Timer
}

// maxHold bounds how long a note waits for the program's open line to end: the line may stay
// open for long (a computation between "step 3 ... " and "done"), and the note is news.
const maxHold = 2 * time.Second

func (nw *noteWriter) write(sink io.Writer, b []byte, notes []noted) {
	if len(notes) == 0 && !nw.holding.Load() {
		sink.Write(b)
		return
	}
	nw.mu.Lock()
	defer nw.mu.Unlock()
	at := 0
	for _, n := range notes {
		if n.at > at {
			nw.pass(sink, b[at:n.at])
			at = n.at
		}
		nw.say(n.text)
	}
	if at < len(b) {
		nw.pass(sink, b[at:])
	}
}

// pass writes output; while notes are held, a line at a time, so that they follow the end of
// the line they wait for, before the next line. nw.mu is held.
func (nw *noteWriter) pass(sink io.Writer, b []byte) {
	for len(b) > 0 && len(nw.held) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		sink.Write(b[:i+1])
		b = b[i+1:]
		nw.release(false)
	}
	if len(b) > 0 {
		sink.Write(b)
	}
	nw.release(false)
}

// say writes a note, or holds it while a line of the program's text is open on the terminal
// (or notes are held already: they keep their order). nw.mu is held.
func (nw *noteWriter) say(text string) {
	if len(nw.held) == 0 {
		for _, le := range nw.ends {
			if le.inText() {
				nw.heldOn = le
				break
			}
		}
		if nw.heldOn == nil {
			nw.emit(text)
			return
		}
		nw.holding.Store(true)
		nw.timer = time.AfterFunc(maxHold, func() {
			nw.mu.Lock()
			nw.release(true)
			nw.mu.Unlock()
		})
	}
	nw.held = append(nw.held, text)
}

// release writes the held notes once the line they wait for has ended, or at once with force
// (the wait is over, or the output ended). nw.mu is held.
func (nw *noteWriter) release(force bool) {
	if len(nw.held) == 0 || !force && nw.heldOn.inText() {
		return
	}
	held := nw.held
	nw.held, nw.heldOn = nil, nil
	nw.holding.Store(false)
	if nw.timer != nil {
		nw.timer.Stop()
		nw.timer = nil
	}
	for _, text := range held {
		nw.emit(text)
	}
}

// emit writes a note, on a line of its own. nw.mu is held.
func (nw *noteWriter) emit(text string) {
	for _, le := range nw.ends {
		if le.open() {
			text = "\n" + text
			break
		}
	}
	nw.notes.Write([]byte(text))
	for _, le := range nw.ends {
		le.closed() // the note ended the line
	}
}

// lineEnds passes writes on and remembers whether the last one left a line open, and whether
// that line is a progress bar's (it holds a carriage return: its frames redraw it).
type lineEnds struct {
	mu     sync.Mutex
	w      io.Writer
	isOpen bool
	bar    bool
}

func (le *lineEnds) Write(p []byte) (int, error) {
	le.mu.Lock()
	defer le.mu.Unlock()
	if i := bytes.LastIndexByte(p, '\n'); i >= 0 {
		le.isOpen, le.bar = i < len(p)-1, bytes.IndexByte(p[i+1:], '\r') >= 0
	} else if len(p) > 0 {
		le.isOpen, le.bar = true, le.bar || bytes.IndexByte(p, '\r') >= 0
	}
	return le.w.Write(p)
}

func (le *lineEnds) open() bool {
	le.mu.Lock()
	defer le.mu.Unlock()
	return le.isOpen
}

// inText says a line of text is open: one a note would cut in two (a bar's is redrawn anyway).
func (le *lineEnds) inText() bool {
	le.mu.Lock()
	defer le.mu.Unlock()
	return le.isOpen && !le.bar
}

func (le *lineEnds) closed() {
	le.mu.Lock()
	le.isOpen, le.bar = false, false
	le.mu.Unlock()
}

// stopper stops the command at a recompilation: SIGINT, then SIGTERM after a grace, then
// SIGKILL, each to the command's process group (its own, see Options.Stop).
type stopper struct {
	once   sync.Once
	mu     sync.Mutex
	why    string
	line   int64 // run.log's last line read when the stop was decided
	p      *os.Process
	own    bool // the command has a process group of its own
	grace  time.Duration
	exited chan struct{}
}

func (s *stopper) stop(why string, line int64) {
	s.once.Do(func() {
		s.mu.Lock()
		s.why, s.line = why, line
		s.mu.Unlock()
		go func() {
			grace, exited := s.grace, s.exited
			for i, sig := range stopSignals {
				if i > 0 && !groupAlive(s.p, s.own) {
					return
				}
				signalGroup(s.p, s.own, sig)
				if i == len(stopSignals)-1 {
					return
				}
				select {
				case <-exited:
					// The command ended; what it left running in its group (a non-interactive
					// shell's background jobs ignore SIGINT) gets the next signals sooner.
					exited, grace = nil, min(grace, maxLeftoverGrace)
					<-time.After(grace)
				case <-time.After(grace):
				}
			}
		}()
	})
}

// maxLeftoverGrace is how long the processes a stopped command left in its group have between
// the signals once the command itself ended.
const maxLeftoverGrace = 500 * time.Millisecond

func (s *stopper) reason() (why string, line int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.why, s.line
}
