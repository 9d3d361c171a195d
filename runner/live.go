package runner

import (
	"io"
	"os"
	"os/exec"
	"sync"
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

// sayLast says what the Live made of the last lines, once the output ended.
func (nw *noteWriter) sayLast(lw *lineLog) {
	if lw.tap != nil {
		nw.write(io.Discard, nil, lw.tap.place(0))
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
	stop  func(why string)
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
	t.lines = t.lines[:0]
	if why := t.live.Stop(); why != "" && t.stop != nil {
		t.stop(why)
	}
}

// noteWriter writes the command's output and the notes said between its lines: the notes to
// their own writer, never inside a line of the output — a note after output that left its line
// open (a progress bar's frame) starts on a new line.
type noteWriter struct {
	mu    *sync.Mutex
	notes io.Writer
	ends  []*lineEnds // what reached the terminal, per stream
}

func (nw *noteWriter) write(sink io.Writer, b []byte, notes []noted) {
	if len(notes) == 0 {
		sink.Write(b)
		return
	}
	nw.mu.Lock()
	defer nw.mu.Unlock()
	at := 0
	for _, n := range notes {
		if n.at > at {
			sink.Write(b[at:n.at])
			at = n.at
		}
		text := n.text
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
	if at < len(b) {
		sink.Write(b[at:])
	}
}

// lineEnds passes writes on and remembers whether the last one left a line open.
type lineEnds struct {
	mu     sync.Mutex
	w      io.Writer
	isOpen bool
}

func (le *lineEnds) Write(p []byte) (int, error) {
	le.mu.Lock()
	defer le.mu.Unlock()
	if len(p) > 0 {
		le.isOpen = p[len(p)-1] != '\n'
	}
	return le.w.Write(p)
}

func (le *lineEnds) open() bool {
	le.mu.Lock()
	defer le.mu.Unlock()
	return le.isOpen
}

func (le *lineEnds) closed() {
	le.mu.Lock()
	le.isOpen = false
	le.mu.Unlock()
}

// stopper stops the command at a recompilation: SIGINT, then SIGTERM after a grace, then
// SIGKILL, each to the command's process group (its own, see Options.Stop).
type stopper struct {
	once   sync.Once
	mu     sync.Mutex
	why    string
	p      *os.Process
	own    bool // the command has a process group of its own
	grace  time.Duration
	exited chan struct{}
}

func (s *stopper) stop(why string) {
	s.once.Do(func() {
		s.mu.Lock()
		s.why = why
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

func (s *stopper) reason() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.why
}
