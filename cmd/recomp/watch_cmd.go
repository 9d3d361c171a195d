package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/recomp/recomp/internal/follow"
	"github.com/recomp/recomp/internal/textutil"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/runner"
	"github.com/recomp/recomp/verdict"
)

type watchCmd struct {
	Warmup          int           `help:"The first N compilations of each log are warm-up." placeholder:"N"`
	After           string        `help:"Everything after the first line matching REGEX is after warm-up (e.g. 'Epoch 2/')." placeholder:"REGEX"`
	FailOnRecompile failCount     `name:"fail-on-recompile" placeholder:"N" help:"Exit 1 at the first compilation after warm-up (=N: at the Nth), after its line and the summary."`
	CompileBudget   time.Duration `name:"compile-budget" placeholder:"DURATION" help:"Exit 1 once the compilations after warm-up took longer than DURATION in all."`
	Interval        time.Duration `default:"250ms" placeholder:"DURATION" help:"How often the logs are looked at (they are polled)."`
	Logs            []string      `arg:"" name:"LOG" help:"Log files (they may not exist yet) or folders (their files, those that appear later too), written by another process."`
}

func (c *watchCmd) Run(e *env) error {
	wf := warmupFlags{Warmup: c.Warmup, After: c.After}
	opt, err := wf.options()
	if err != nil {
		return err
	}
	if c.Interval <= 0 || c.CompileBudget < 0 {
		return usageErr("--interval wants a duration > 0, --compile-budget one >= 0")
	}
	for _, p := range c.Logs {
		if p == "-" {
			return usageErr("recomp watch follows files and folders, not standard input ('-'): use recomp scan -")
		}
	}
	fl, err := follow.New(c.Logs)
	if err != nil {
		return usageErr("%v", err)
	}
	defer fl.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	w := &watcher{fl: fl, out: e.stdout, warn: e.stderr, color: e.color, every: liveEvery,
		lopt:  ledger.LiveOptions{Ledger: opt.Ledger, Marker: opt.Marker},
		tally: &liveTally{policy: stopPolicy{Count: int(c.FailOnRecompile), Budget: c.CompileBudget}}}
	return w.run(ctx, c.Interval)
}

// watcher follows logs and says their compilations after warm-up as they are written: a Live
// ledger per log (one process each), fed what each Poll read.
type watcher struct {
	fl     *follow.Follower
	out    io.Writer
	warn   io.Writer
	color  bool
	lopt   ledger.LiveOptions
	tally  *liveTally
	every  time.Duration // liveEvery
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
	live *liveLines
	open bool // the last byte read was not a line's end
}

// maxWarnings bounds the distinct warnings recomp watch says (and remembers).
const maxWarnings = 100

// maxWatchedLogs bounds the logs followed at once (follow.MaxFiles files).
const maxWatchedLogs = follow.MaxFiles

func (w *watcher) run(ctx context.Context, every time.Duration) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		w.poll()
		if w.tally.stop != "" {
			fmt.Fprintf(w.out, "recomp watch: failing: %s\n", w.tally.stop)
			w.summary()
			return exitWith(exitFound)
		}
		select {
		case <-ctx.Done():
			if w.summary() {
				return exitWith(exitUsage)
			}
			return nil
		case <-t.C:
		}
	}
}

// poll reads what the logs gained and says their compilations after warm-up.
func (w *watcher) poll() {
	if w.logs == nil {
		w.logs = map[string]*watchedLog{}
	}
	chunks, warnings := w.fl.Poll()
	for _, msg := range warnings {
		if w.warned == nil {
			w.warned = map[string]bool{}
		}
		if w.warned[msg] {
			continue // said once (a file that stays unreadable is polled again and again)
		}
		if len(w.warned) >= maxWarnings {
			if w.unsaid == nil {
				w.unsaid = map[string]bool{}
			}
			if len(w.unsaid) < 100*maxWarnings {
				w.unsaid[msg] = true
			}
			continue
		}
		w.warned[msg] = true
		fmt.Fprintf(w.warn, "recomp watch: warning: %s\n", textutil.Visible(msg))
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
			wl = &watchedLog{live: newLiveLines(lopt, "recomp watch", w.color, w.tally)}
			wl.live.label, wl.live.every, wl.live.watching = c.Log, w.every, true
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

// summary says, per log, what was compiled and what after warm-up (on Ctrl-C, or at a failure),
// and whether files or logs were left unread for the caps on what is followed: then no count
// is an all-clear, and it says true (inconclusive).
func (w *watcher) summary() (inconclusive bool) {
	total := 0
	for _, name := range w.order {
		rep, notes := w.logs[name].live.close()
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
