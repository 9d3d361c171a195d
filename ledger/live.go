package ledger

import (
	"io"
	"sync"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/logscan"
)

// Live is the ledger of a log that is still being written (recomp run's run.log, a log another
// process appends to): the same Scanner and the same Ledger as ReadLogs, fed as the lines
// arrive. Each Write returns once every whole line it completed has been read into the ledger,
// and Compiled then gives the compilations those lines closed, with the warm-up already decided:
// the live verdict is the end-of-run verdict, line by line. A Live is one process's log (one per
// rank that a launcher's prefix names in it). It is not safe for concurrent use.
type Live struct {
	feed *liveFeed
	done chan struct{}
	s    *logscan.Scanner
	ps   *processes
	opt  LiveOptions

	cur    int          // the line of the event being added
	router *pidRouter   // the probe's processes (LiveOptions.Stages)
	pids   map[int]bool // processes the probe's records named (any stage; two at most)
	counts countRouter  // compilations that count their process's (several processes)
	// unrecorded says the probe wrote no stage within firstWait of the first stage the log
	// showed: no stage is waited for again.
	unrecorded bool
	closed     []LiveUnit
	rep        *Report
	sup        []logscan.Event // events recorded elsewhere, not yet added (LiveOptions.Supplement)
}

// LiveOptions say how a Live reads its log.
type LiveOptions struct {
	// Ledger is the warm-up policy (its AfterMarker is set when Marker is), as ReadOptions'.
	Ledger Options
	// Marker is the warm-up boundary (--after), compiled by the caller.
	Marker *logscan.LineRegexp
	// Name names the log in events and units.
	Name string
	// Stages, when set, gives the compile stages the probe recorded since the last call (pid
	// and duration; see StageRecord): once they name more than one process, each JAX event is
	// accounted to its own process, as ReadLogs does with ReadOptions.Stages, so that workers
	// writing one terminal are not read as one process compiling again.
	Stages func() []StageRecord
	// Supplement, when set, gives the events of the log's process recorded elsewhere since the
	// last call (recomp run's probe: the compile records of a stack whose compile logging the
	// user switched off, which its log will never show): each Write adds them after the lines
	// it read, Close those still left, as ReadLogs adds Log.Supplement.
	Supplement func() []logscan.Event
}

// LiveUnit is a compilation the lines of a Write closed: Line is the log's line (counted from 1
// over everything written) whose event closed it — the place to say so, after that line.
type LiveUnit struct {
	*Unit
	Line int
}

// NewLive starts reading a log that is being written. Call Close when it ends.
func NewLive(opt LiveOptions) *Live {
	opt.Ledger.AfterMarker = opt.Marker != nil
	lv := &Live{feed: newLiveFeed(), done: make(chan struct{}), opt: opt}
	lv.ps = newProcesses(opt.Ledger)
	lv.ps.intern = newInterner()
	lv.ps.hook = func(u *Unit) {
		if u.Compiled {
			lv.closed = append(lv.closed, LiveUnit{Unit: u, Line: lv.cur})
		}
	}
	lv.s = logscan.NewScanner(lv.feed, opt.Name, logscan.Options{Marker: opt.Marker, Grammar: frameworks.Grammar(), KeepRepeats: opt.Stages != nil})
	go lv.read()
	return lv
}

func (lv *Live) read() {
	defer close(lv.done)
	lv.ps.ledger("", 0, lv.opt.Name)
	lv.ps.events[""]--
	for lv.s.Scan() {
		ev := lv.s.Event()
		if ev.Kind == logscan.PhaseStart || ev.Kind == logscan.PhaseEnd {
			continue
		}
		if lv.router.printedTwice(ev) {
			continue // a record printed twice
		}
		lv.cur = ev.Line
		if ev.DateKnown && ev.Rank == "" {
			lv.supplement(ev.Time) // what was recorded elsewhere before the line, first
		}
		if ev.Rank == "" && lv.opt.Stages != nil && stageProducers[ev.Producer] {
			lv.route(ev)
			continue
		}
		if ev.Rank == "" && lv.opt.Stages != nil && counted(ev) {
			lv.pull()
			if len(lv.pids) < 2 && ev.Count == 1 && lv.counts.has(ev.Module) {
				// A second first compilation is another process's: its probe record may come a
				// moment after the line (one process alone never has two).
				for waited := time.Duration(0); len(lv.pids) < 2 && waited < routeWait; waited += 10 * time.Millisecond {
					time.Sleep(10 * time.Millisecond)
					lv.pull()
				}
			}
			p := lv.counts.process(ev) // counted from the first, as ReadLogs counts them
			if len(lv.pids) > 1 {      // several processes ran a stack: the one its count continues
				lv.ps.ledger(p, 0, lv.opt.Name).Add(ev)
				continue
			}
		}
		lv.ps.ledger(ev.Rank, 0, lv.opt.Name).Add(ev)
	}
	if lv.router != nil {
		lv.router.flush(lv.put)
	}
	lv.cur = lv.s.Stats().Lines
	lv.supplement(time.Time{})
	lv.ps.addUnread(lv.opt.Name, lv.s.Stats())
	lv.ps.endInput(0, lv.opt.Marker != nil)
	m := newMerger(lv.opt.Ledger)
	m.mergeLog(lv.ps.reports())
	lv.rep = m.finish()
}

// routeWait is how long route waits, at most, for the probe's record of a JAX stage the log
// has just shown: the probe writes it as JAX reports it, a moment before or after the line.
// firstWait is how long it waits for the first: pytest -n's workers start compiling together,
// and the first stage of each must be keyed by its process, or a worker's first compilation
// reads live as another's compiled again.
const (
	routeWait = 100 * time.Millisecond
	firstWait = time.Second
)

// route gives a JAX event to the ledger of its process, named from the probe's records (the
// log's own while they name one process only, as ReadLogs keys a single process). A stage the
// log shows before the probe's record of it is waited for (routeWait at most; firstWait for
// the first, and none once the first found none): a second worker's first stage must count as
// a second process before its events are keyed.
func (lv *Live) route(ev logscan.Event) {
	lv.pull()
	r := lv.router
	if routable(ev) && (len(r.pids) > 0 || !lv.unrecorded) {
		limit := routeWait
		if len(r.pids) == 0 {
			limit = firstWait
		}
		for waited := time.Duration(0); !r.has(ev) && waited < limit; waited += 10 * time.Millisecond {
			time.Sleep(10 * time.Millisecond)
			lv.pull()
		}
		lv.unrecorded = len(r.pids) == 0
	}
	r.route(ev, lv.put)
}

// pull takes the probe's records written since the last call: the router's stages, and the
// processes that ran a stack.
func (lv *Live) pull() {
	if lv.router == nil {
		lv.router = newRouter()
	}
	recs := lv.opt.Stages()
	lv.router.add(recs)
	for _, rec := range recs {
		if rec.PID != 0 && len(lv.pids) < 2 { // (whether there are several is all that counts)
			if lv.pids == nil {
				lv.pids = map[int]bool{}
			}
			lv.pids[rec.PID] = true
		}
	}
}

// put adds a routed event to its process's ledger.
func (lv *Live) put(p string, ev logscan.Event) {
	if !lv.router.several() {
		p = ""
	}
	if p != "" {
		lv.ps.routed = true
	}
	lv.ps.ledger(p, 0, lv.opt.Name).Add(ev)
}

// Write reads p, a piece of the log, into the ledger: when it returns, every line p completed
// has been read (a record whose lines continue is read when the line after it comes).
func (lv *Live) Write(p []byte) (int, error) {
	select {
	case <-lv.done:
		return 0, io.ErrClosedPipe
	default:
	}
	lv.feed.write(p)
	// The Scanner has read p and waits for more: the ledger is this goroutine's until the
	// next write. What was recorded elsewhere by now is earlier than any line still to come
	// (run.log stamps a line with the time it arrives).
	lv.supplement(time.Time{})
	return len(p), nil
}

// supplement adds to the log's own process the events recorded elsewhere (LiveOptions.Supplement)
// that are dated before t, all of them when t is zero.
func (lv *Live) supplement(t time.Time) {
	if lv.opt.Supplement == nil {
		return
	}
	lv.sup = append(lv.sup, lv.opt.Supplement()...)
	n := 0
	for n < len(lv.sup) && (t.IsZero() || lv.sup[n].Time.Before(t)) {
		lv.ps.ledger("", 0, lv.opt.Name).Add(lv.sup[n])
		n++
	}
	lv.sup = lv.sup[n:]
}

// Compiled returns the compilations closed since the last call, in log order.
func (lv *Live) Compiled() []LiveUnit {
	out := lv.closed
	lv.closed = nil
	return out
}

// Lines is how many lines have been read.
func (lv *Live) Lines() int { return lv.s.Stats().Lines }

// Close ends the log: what is still open is closed (Compiled returns it), and the Report is the
// account of the whole log, as ReadLogs would give it.
func (lv *Live) Close() *Report {
	lv.feed.close()
	<-lv.done
	return lv.rep
}

// liveFeed is the reader a Live's Scanner reads: write hands it a piece and returns once the Scanner
// has read all of it and asks for more — by then every whole line of it has been processed.
type liveFeed struct {
	in   chan []byte
	ack  chan struct{}
	cur  []byte
	owed bool
	once sync.Once
}

func newLiveFeed() *liveFeed { return &liveFeed{in: make(chan []byte), ack: make(chan struct{})} }

func (f *liveFeed) Read(p []byte) (int, error) {
	if len(f.cur) == 0 {
		if f.owed {
			f.owed = false
			f.ack <- struct{}{}
		}
		b, ok := <-f.in
		if !ok {
			return 0, io.EOF
		}
		f.cur, f.owed = b, true
	}
	n := copy(p, f.cur)
	f.cur = f.cur[n:]
	return n, nil
}

func (f *liveFeed) write(p []byte) {
	if len(p) == 0 {
		return
	}
	f.in <- p
	<-f.ack
}

func (f *liveFeed) close() { f.once.Do(func() { close(f.in) }) }

// Options are the ledger's options the live log is read with (the marker's among them).
func (lv *Live) Options() Options { return lv.opt.Ledger }
