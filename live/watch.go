package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/recomp/recomp/internal/follow"
	"github.com/recomp/recomp/internal/option"
	"github.com/recomp/recomp/internal/textutil"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/runner"
	"github.com/recomp/recomp/verdict"
)

// WatchOptions say how recomp watch follows logs and where it says what it saw.
type WatchOptions struct {
	// Out takes the live lines and the summary; Warn the warnings of following the logs.
	Out, Warn io.Writer
	Color     bool
	// Ledger is the warm-up (each log is a process of its own); its Name is each log's.
	Ledger ledger.LiveOptions
	Stop   StopPolicy
}

// Watcher follows logs and says their compilations after warm-up as they are written: a Live
// ledger per log (one process each), fed what each Poll read.
type Watcher struct {
	fl     *follow.Follower
	out    io.Writer
	warn   io.Writer
	color  bool
	lopt   ledger.LiveOptions
	tally  *Tally
	every  time.Duration // Every
	logs   map[string]*watchedLog
	warned map[string]bool // the warnings said
	unsaid map[string]bool // distinct warnings past maxWarnings, not said (the first 100×maxWarnings)
	order  []string
	// unread counts what was read of logs found past maxWatchedLogs (a folder whose files are
	// replaced by new names): chunks and bytes, not accounted.
	unreadChunks int
	unreadBytes  int64
}

type watchedLog struct {
	live *Lines
	open bool // the last byte read was not a line's end
}

// maxWarnings bounds the distinct warnings recomp watch says (and remembers).
const maxWarnings = 100

// maxWatchedLogs bounds the logs followed at once (follow.MaxFiles files).
const maxWatchedLogs = follow.MaxFiles

// Watch follows logs (files, or folders of them) every interval until ctx ends or the stop
// policy is met, and says their compilations after warm-up and the summary.
func Watch(ctx context.Context, logs []string, every time.Duration, opt WatchOptions) (WatchEnd, error) {
	if every <= 0 || opt.Stop.Budget < 0 {
		return 0, option.New([]string{"interval", "compile-budget"}, "%[1]s wants a duration > 0, %[2]s one >= 0")
	}
	for _, p := range logs {
		if p == "-" {
			return 0, errors.New("recomp watch follows files and folders, not standard input ('-'): use recomp scan -")
		}
	}
	fl, err := follow.New(logs)
	if err != nil {
		return 0, err
	}
	defer fl.Close()
	return NewWatcher(fl, opt).Run(ctx, every), nil
}

// NewWatcher says the compilations after warm-up of the logs fl follows.
func NewWatcher(fl *follow.Follower, opt WatchOptions) *Watcher {
	return &Watcher{fl: fl, out: opt.Out, warn: opt.Warn, color: opt.Color, every: Every, lopt: opt.Ledger,
		tally: NewTally(opt.Stop), logs: map[string]*watchedLog{}}
}

// WatchEnd is how a watch ended.
type WatchEnd int

const (
	// Interrupted: the context ended (Ctrl-C), and every log was read to its end.
	Interrupted WatchEnd = iota
	// Failed: a compilation after warm-up met the stop policy.
	Failed
	// Inconclusive: the context ended, and some logs or files were left unread for the caps on
	// what is followed, or a log's compilations were left out: no count is an all-clear.
	Inconclusive
)

// Run polls the logs every interval until ctx ends or the stop policy is met, then says the
// summary.
func (w *Watcher) Run(ctx context.Context, every time.Duration) WatchEnd {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		w.Poll()
		if w.tally.stop != "" {
			fmt.Fprintf(w.out, "recomp watch: failing: %s\n", w.tally.stop)
			w.Summary()
			return Failed
		}
		select {
		case <-ctx.Done():
			if w.Summary() {
				return Inconclusive
			}
			return Interrupted
		case <-t.C:
		}
	}
}

// Poll reads what the logs gained and says their compilations after warm-up.
func (w *Watcher) Poll() {
	chunks, warnings := w.fl.Poll()
	for _, msg := range warnings {
		w.warning(msg)
	}
	for _, c := range chunks {
		wl := w.logs[c.Log]
		if wl == nil {
			if len(w.logs) >= maxWatchedLogs {
				w.unreadChunks++ // said by the summary: the verdict is inconclusive
				w.unreadBytes += int64(len(c.Data))
				continue
			}
			lopt := w.lopt
			lopt.Name = c.Log
			wl = &watchedLog{live: NewLines(lopt, "recomp watch", w.color, w.tally)}
			wl.live.label, wl.live.Every, wl.live.watching = c.Log, w.every, true
			w.logs[c.Log] = wl
			w.order = append(w.order, c.Log)
		}
		var notes []runner.Note
		if c.Restart && wl.open {
			notes = append(notes, wl.live.Log([]byte("\n"), 0)...) // the line left open ends there
		}
		if len(c.Data) > 0 {
			notes = append(notes, wl.live.Log(c.Data, 0)...)
			wl.open = c.Data[len(c.Data)-1] != '\n'
		}
		for _, n := range notes {
			io.WriteString(w.out, n.Text)
		}
	}
}

// warning says a warning of following the logs once (a file that stays unreadable is polled
// again and again); past maxWarnings, it is counted.
func (w *Watcher) warning(msg string) {
	if w.warned == nil {
		w.warned = map[string]bool{}
	}
	if w.warned[msg] {
		return
	}
	if len(w.warned) >= maxWarnings {
		if w.unsaid == nil {
			w.unsaid = map[string]bool{}
		}
		if len(w.unsaid) < 100*maxWarnings {
			w.unsaid[msg] = true
		}
		return
	}
	w.warned[msg] = true
	fmt.Fprintf(w.warn, "recomp watch: warning: %s\n", textutil.Visible(msg))
}

// Summary says, per log, what was compiled and what after warm-up (on Ctrl-C, or at a failure),
// and whether files or logs were left unread for the caps on what is followed: then no count
// is an all-clear, and it says true (inconclusive).
func (w *Watcher) Summary() (inconclusive bool) {
	total := 0
	for _, name := range w.order {
		rep, notes := w.logs[name].live.Close()
		for _, n := range notes {
			io.WriteString(w.out, n.Text)
		}
		total += rep.Summary.AfterWarmup
		fmt.Fprintf(w.out, "recomp watch: %s: %s\n", textutil.Visible(name), verdict.LiveSummary(rep))
		for _, msg := range rep.LeftOut {
			fmt.Fprintf(w.out, "recomp watch: inconclusive: %s: their compilations are not counted\n", textutil.Visible(msg))
			inconclusive = true
		}
	}
	fmt.Fprintf(w.out, "recomp watch: %d log(s), %d compilation(s) after warm-up\n", len(w.order), total)
	return w.leftUnread() || inconclusive
}

// leftUnread says the warnings not said and what the caps on what is followed left unread;
// true when something was.
func (w *Watcher) leftUnread() (inconclusive bool) {
	if n := len(w.unsaid); n > 0 {
		more := ""
		if n >= 100*maxWarnings {
			more = "at least "
		}
		fmt.Fprintf(w.out, "recomp watch: %s%d more warning(s) not said\n", more, n)
	}
	if n := w.fl.LeftOut(); n > 0 {
		fmt.Fprintf(w.out, "recomp watch: inconclusive: %d file(s) in the folders were not followed (recomp watch follows at most %d files): their compilations are not counted\n",
			n, follow.MaxFiles)
		inconclusive = true
	}
	if w.unreadChunks > 0 {
		fmt.Fprintf(w.out, "recomp watch: inconclusive: %d byte(s) of logs found after the first %d were not read: their compilations are not counted\n",
			w.unreadBytes, maxWatchedLogs)
		inconclusive = true
	}
	rotated, _ := ledger.RotatedNames(w.order, "followed as logs of their own, a compilation in one part is not held against the others; "+
		"recomp scan --same-process reads them as one, oldest first")
	for _, msg := range rotated { // one log in parts, followed as logs of their own
		fmt.Fprintf(w.out, "recomp watch: warning: %s\n", textutil.Visible(msg))
	}
	return inconclusive
}
