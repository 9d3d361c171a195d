package runner

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/recomp/recomp/runfolder"
)

// Options describe a command to run.
type Options struct {
	Command []string
	Env     []string
	Dir     string // the working directory ("" for the current one)
	// Stdin is the command's standard input (given to it as it is); Stdout and Stderr receive
	// its output unchanged, as it arrives.
	Stdin          *os.File
	Stdout, Stderr io.Writer
	// Terminal gives the command a pseudo-terminal for its output (its progress bars and
	// colours stay as on a terminal) where the system has them (not Windows); its stdout and
	// stderr then arrive as one stream, on Stdout. The pseudo-terminal takes the size of
	// Stdout when that is a terminal, and follows it when it is resized (SIGWINCH). Without
	// one they stay two pipes.
	Terminal bool
	// Log receives every line of output, each prefixed with the time it arrived
	// (RFC 3339 in UTC, the layout of kubectl logs --timestamps, which recomp scan reads).
	Log io.Writer
	// Signals are forwarded to the command while it runs (nil: SIGINT, SIGTERM, SIGHUP, SIGQUIT).
	Signals []os.Signal
	// ForwardInterrupt forwards SIGINT too when the command shares the terminal's process group
	// (a Ctrl-C then reaches it already): only when stdin is not a terminal.
	ForwardInterrupt bool
	// Quiet, when set, keeps the lines it names out of Stdout and Stderr (they still go to Log):
	// the compile logging recomp switched on, which the user did not ask to see.
	Quiet *Quiet
	// Grace is how long output is still read after the command exited while a process it
	// started keeps the output open (a server left in the background); 0 means DefaultGrace.
	Grace time.Duration
	Now   func() time.Time
	// Live, when set, reads run.log as it is written (see Live): its notes go to Notes, between
	// the program's lines, and when it says stop the command is stopped (Result.Stopped).
	Live  Live
	Notes io.Writer
	// OwnGroup runs the command in a process group of its own (where the system has them), the
	// group a stop signals whole; recomp then passes a Ctrl-C on to it.
	OwnGroup bool
	// StopGrace is how long a stopped command has after SIGINT, then after SIGTERM, before
	// SIGKILL (0: DefaultStopGrace).
	StopGrace time.Duration
	// Watchdog is the command that starts this program again as the command's watchdog
	// (WatchdogCommand; see watchdog.go), which ends the command and the processes below it when
	// recomp ends before it, even by SIGKILL. nil: none; the command alone then gets the
	// parent-death signal (Linux).
	Watchdog []string
}

// DefaultGrace is how long Run reads the output of processes the command left behind.
const DefaultGrace = 3 * time.Second

// Result is how a command ended.
type Result struct {
	Start, End time.Time
	ExitCode   int    // the command's exit code; 128+N when a signal N ended it
	Signal     string // the signal that ended it, if one did
	Lines      int64  // lines of output
	Bytes      int64  // bytes of output
	Forwarded  []string
	// HeldOpen says a process the command started kept its output open after the command
	// exited: Run stopped reading Grace later, and what it printed afterwards is not logged.
	HeldOpen bool
	// Stopped says why recomp stopped the command (Options.Live asked it to), "" when it did not;
	// StoppedLine is run.log's last line the Live had read when it asked (what followed is the
	// command's answer to the stop, its traceback included).
	Stopped     string
	StoppedLine int64
	// LogError is the first error writing the log (a full disk): what was written before it
	// stays, and LogLost bytes of the log (with their time stamps) were not written.
	LogError string
	LogLost  int64
}

// maxLine bounds the part of a line the log writer holds: a longer line is written in pieces,
// so memory stays bounded whatever the command prints.
const maxLine = runfolder.MaxLogLine

// Run runs the command until it ends. Its output goes to Stdout/Stderr unchanged and to Log
// line by line with arrival times; signals recomp receives are forwarded to it. The error is
// for a command that could not be started; a command that fails is a Result with its code.
func Run(opt Options) (*Result, error) {
	if len(opt.Command) == 0 {
		return nil, errors.New("no command to run")
	}
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	cmd := exec.Command(opt.Command[0], opt.Command[1:]...)
	cmd.Env, cmd.Dir, cmd.Stdin = opt.Env, opt.Dir, opt.Stdin
	// The command never outlives recomp: killed (Linux) when recomp ends, however it ends, by
	// the watchdog with the processes below it, else by the parent-death signal.
	wd := startWatchdog(opt.Watchdog)
	cmd.SysProcAttr = childAttr(wd != nil)
	lw := newLineLog(opt.Log, now)
	nw := prepareLive(&opt, cmd, lw)
	var sources []io.Reader
	var sinks []io.Writer
	var closeAfterStart []io.Closer
	var master *os.File
	if opt.Terminal {
		m, slave, err := openPTY()
		if err == nil {
			master = m
			copyWindowSize(opt.Stdout, master)
			cmd.Stdout, cmd.Stderr = slave, slave
			sources, sinks = []io.Reader{ptyReader{master}}, []io.Writer{opt.Stdout}
			closeAfterStart = append(closeAfterStart, slave)
			defer master.Close()
		} else {
			opt.Terminal = false
		}
	}
	if !opt.Terminal {
		outR, outW, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		errR, errW, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		growPipe(outW)
		growPipe(errW)
		cmd.Stdout, cmd.Stderr = outW, errW
		sources, sinks = []io.Reader{outR, errR}, []io.Writer{opt.Stdout, opt.Stderr}
		closeAfterStart = append(closeAfterStart, outW, errW)
		defer outR.Close()
		defer errR.Close()
	}
	res := &Result{Start: now()}
	if err := cmd.Start(); err != nil {
		for _, c := range closeAfterStart {
			c.Close()
		}
		wd.done()
		return nil, fmt.Errorf("%s: %v", opt.Command[0], err)
	}
	wd.arm(cmd.Process.Pid, opt.OwnGroup)
	defer wd.done()
	for _, c := range closeAfterStart {
		c.Close()
	}
	stopper := newStopper(cmd.Process, opt, lw)
	stop := forwardSignals(cmd.Process, opt, res)
	stopResize := func() {}
	if master != nil {
		stopResize = followWindowSize(opt.Stdout, master, cmd.Process)
	}
	nw.follow(sinks)
	var quiets []*quietWriter
	if opt.Quiet != nil && len(opt.Quiet.Lines) > 0 {
		for i := range sinks {
			qw := newQuietWriter(sinks[i], opt.Quiet)
			quiets = append(quiets, qw)
			sinks[i] = qw
		}
	}
	var wg sync.WaitGroup
	for i := range sources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			copyStream(sources[i], sinks[i], lw, i, nw)
		}()
	}
	copied := make(chan struct{})
	go func() { wg.Wait(); close(copied) }()
	err := cmd.Wait()
	close(stopper.exited)
	stop()
	stopResize()
	res.End = now()
	grace := opt.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	select {
	case <-copied: // the output ended with the command
	case <-time.After(grace):
		// A process the command started holds its output open: stop reading it.
		res.HeldOpen = true
		for _, src := range sources {
			if f, ok := src.(interface{ SetReadDeadline(time.Time) error }); ok {
				f.SetReadDeadline(time.Now())
			}
		}
		select {
		case <-copied:
		case <-time.After(time.Second): // a source without deadlines: leave its reader behind
		}
	}
	for _, qw := range quiets {
		qw.Close()
	}
	res.Lines, res.Bytes = lw.flush()
	if lw.err != nil {
		res.LogError, res.LogLost = lw.err.Error(), lw.lost
	}
	nw.sayLast(lw)
	res.Stopped, res.StoppedLine = stopper.reason()
	res.ExitCode = exitCode(cmd.ProcessState, err, res)
	return res, nil
}

func exitCode(ps *os.ProcessState, err error, res *Result) int {
	if ps == nil {
		return 1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.Signal = ws.Signal().String()
		return 128 + int(ws.Signal())
	}
	if err != nil && ps.ExitCode() < 0 {
		return 1
	}
	return ps.ExitCode()
}

// forwardSignals passes the signals recomp receives on to the command until stop is called.
func forwardSignals(p *os.Process, opt Options, res *Result) (stop func()) {
	sigs := opt.Signals
	if sigs == nil {
		sigs = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}
	}
	ch := make(chan os.Signal, 8)
	signal.Notify(ch, sigs...)
	done := make(chan struct{})
	var mu sync.Mutex
	go func() {
		for {
			select {
			case s := <-ch:
				if s == syscall.SIGINT && !opt.ForwardInterrupt {
					continue // the terminal sent it to the command's process group already
				}
				signalGroup(p, opt.OwnGroup, s)
				mu.Lock()
				res.Forwarded = append(res.Forwarded, s.String())
				mu.Unlock()
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
		// Wait for a signal being recorded to be in res.Forwarded before the caller reads it.
		mu.Lock()
		mu.Unlock() //lint:ignore SA2001 the empty section waits for the forwarding goroutine's append
	}
}

// copyStream copies a stream to its sink unchanged and to the line log; what the log's Live
// says about its lines is written between them.
func copyStream(r io.Reader, sink io.Writer, lw *lineLog, stream int, nw *noteWriter) {
	buf := make([]byte, 256<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			notes := lw.write(stream, buf[:n])
			nw.write(sink, buf[:n], notes) // a sink that fails (a closed terminal) must not stop the command
		}
		if err != nil {
			lw.end(stream)
			return
		}
	}
}

// SetReadDeadline passes a deadline to the pseudo-terminal's master.
func (r ptyReader) SetReadDeadline(t time.Time) error { return r.f.SetReadDeadline(t) }

// lineLog writes the lines of one or two streams to the log, each line prefixed with the time
// its first byte arrived. A line of one stream is written whole, never interleaved with the
// other's. Lines are written within flushAfter of their end, or as soon as 64 KiB are pending,
// so a recomp that is killed loses at most the last tenth of a second of ended lines (and a
// line still unfinished), and a command printing fast costs one write per 64 KiB. Each
// arrival time is formatted once. After a failed write (a full disk) nothing more is written:
// err is that error, lost counts what was not written.
type lineLog struct {
	mu        sync.Mutex
	w         io.Writer
	now       func() time.Time
	partial   [2][]byte
	started   [2]time.Time
	out       []byte
	lastT     time.Time
	lastStamp []byte
	lines     int64
	bytes     int64
	tap       *liveTap // the Live that reads the lines as they are written (nil: none)
	err       error
	lost      int64
	timer     *time.Timer // writes what is pending flushAfter after it was formatted
	armed     bool
}

// flushAfter is the longest an ended line waits in memory before it is written.
const flushAfter = 100 * time.Millisecond

// pending writes what is formatted when 64 KiB are, else makes sure it is written within
// flushAfter.
func (l *lineLog) pending() {
	switch {
	case len(l.out) >= 64<<10:
		l.emit()
	case len(l.out) == 0 || l.armed:
	case l.timer == nil:
		l.armed = true
		l.timer = time.AfterFunc(flushAfter, func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.emit()
		})
	default:
		l.armed = true
		l.timer.Reset(flushAfter)
	}
}

func newLineLog(w io.Writer, now func() time.Time) *lineLog {
	if w == nil {
		w = io.Discard
	}
	return &lineLog{w: w, now: now, out: make([]byte, 0, 64<<10)}
}

func (l *lineLog) stamp(t time.Time) []byte {
	if !t.Equal(l.lastT) || l.lastStamp == nil {
		l.lastT = t
		l.lastStamp = t.UTC().AppendFormat(l.lastStamp[:0], "2006-01-02T15:04:05.000000000Z")
		l.lastStamp = append(l.lastStamp, ' ')
	}
	return l.lastStamp
}

func (l *lineLog) line(t time.Time, parts ...[]byte) {
	start := len(l.out)
	l.out = append(l.out, l.stamp(t)...)
	for _, p := range parts {
		l.out = append(l.out, p...)
	}
	l.out = append(l.out, '\n')
	l.lines++
	if tp := l.tap; tp != nil {
		if len(tp.lines) == 0 {
			tp.first = l.lines
		}
		tp.lines = append(tp.lines, l.out[start:]...)
	}
}

// emit writes the lines formatted so far.
func (l *lineLog) emit() {
	l.armed = false
	if len(l.out) == 0 {
		return
	}
	if l.err == nil {
		n, err := l.w.Write(l.out)
		if err != nil {
			l.err, l.lost = err, int64(len(l.out)-n)
		}
	} else {
		l.lost += int64(len(l.out))
	}
	l.out = l.out[:0]
}

func (l *lineLog) write(stream int, b []byte) []noted {
	l.mu.Lock()
	defer l.mu.Unlock()
	defer l.pending()
	l.bytes += int64(len(b))
	t := l.now()
	n := len(b)
	for len(b) > 0 {
		p := &l.partial[stream]
		if len(*p) == 0 {
			l.started[stream] = t
		}
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			room := maxLine - len(*p)
			if len(b) < room {
				*p = append(*p, b...)
				break
			}
			l.line(l.started[stream], *p, b[:room]) // a very long line: written in pieces
			*p, b = (*p)[:0], b[room:]
			l.ended(n - len(b))
			continue
		}
		l.line(l.started[stream], *p, b[:i])
		*p, b = (*p)[:0], b[i+1:]
		l.ended(n - len(b))
	}
	if l.tap == nil {
		return nil
	}
	l.tap.read()
	return l.tap.place(n)
}

// ended notes, for the Live, where in the bytes being written the line just logged ended.
func (l *lineLog) ended(at int) {
	if l.tap != nil {
		l.tap.ends = append(l.tap.ends, at)
	}
}

// end writes what is left of a stream's last line.
func (l *lineLog) end(stream int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	defer l.pending()
	if len(l.partial[stream]) > 0 {
		l.line(l.started[stream], l.partial[stream])
		l.partial[stream] = l.partial[stream][:0]
	}
	if l.tap != nil {
		l.tap.read() // its notes are said at the end (Run)
	}
}

// flush writes what is buffered and returns the counts. The log is complete: what a reader left
// behind still writes is dropped.
func (l *lineLog) flush() (lines, bytes int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for s := range l.partial {
		if len(l.partial[s]) > 0 {
			l.line(l.started[s], l.partial[s])
			l.partial[s] = l.partial[s][:0]
		}
	}
	if l.tap != nil {
		l.tap.read()
	}
	l.emit()
	if l.timer != nil {
		l.timer.Stop()
	}
	l.w = io.Discard
	return l.lines, l.bytes
}
