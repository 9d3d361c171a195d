//go:build unix

package runner

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recomp/recomp/internal/lazyre"
	"github.com/recomp/recomp/internal/livetest"
)

// fakeLive notes each run.log line that holds "COMPILE" and asks to stop at the first when
// stop is set.
type fakeLive struct {
	mu    sync.Mutex
	stop  bool
	seen  int
	lines []string
	nums  []int64
}

func (f *fakeLive) Log(lines []byte, first int64) []Note {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Note
	for i, l := range strings.SplitAfter(string(lines), "\n") {
		if l == "" {
			continue
		}
		f.lines = append(f.lines, l)
		f.nums = append(f.nums, first+int64(i))
		if strings.Contains(l, "COMPILE") {
			f.seen++
			out = append(out, Note{After: first + int64(i), Text: fmt.Sprintf("NOTE %d\n", f.seen)})
		}
	}
	return out
}

func (f *fakeLive) Stop() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stop && f.seen > 0 {
		return "a compilation after warm-up"
	}
	return ""
}

// The notes come between the program's lines, right after the line they are about and before
// the next, even when the program writes them in one piece; the Live gets every line of
// run.log, numbered, with its timestamp.
func TestLiveNotesBetweenLines(t *testing.T) {
	var screen livetest.Buffer
	live := &fakeLive{}
	res, err := Run(Options{Command: []string{"sh", "-c", `printf 'one\nCOMPILE a\ntwo\nCOMPILE b\n'; printf 'three'; sleep 0.2; printf ' end\nCOMPILE c'`},
		Stdout: &screen, Stderr: &screen, Notes: &screen, Live: live, Log: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	want := "one\nCOMPILE a\nNOTE 1\ntwo\nCOMPILE b\nNOTE 2\nthree end\nCOMPILE c\nNOTE 3\n"
	if got := screen.String(); got != want || res.ExitCode != 0 || res.Stopped != "" {
		t.Errorf("the screen shows %q, want %q (exit %d, stopped %q)", got, want, res.ExitCode, res.Stopped)
	}
	stamp := regexp.MustCompile(`^\d{4}-\d\d-\d\dT[\d:.]+Z `)
	for i, l := range live.lines {
		if !stamp.MatchString(l) || live.nums[i] != int64(i+1) {
			t.Errorf("line %d given as %d: %q", i+1, live.nums[i], l)
		}
	}
	if len(live.lines) != 6 {
		t.Errorf("the Live got %d lines: %q", len(live.lines), live.lines)
	}
}

// A Live that says stop stops the command: SIGINT to its process group, then SIGTERM after the
// grace (the command ignores SIGINT here), and the Result says why.
func TestLiveStop(t *testing.T) {
	for _, c := range []struct {
		name, script string
		signal       string
	}{
		{"interrupt", `echo COMPILE; sleep 30 & wait`, "interrupt"},
		{"ignores interrupt", `trap '' INT; echo COMPILE; sleep 30 & wait`, "terminated"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var screen livetest.Buffer
			start := time.Now()
			res, err := Run(Options{Command: []string{"sh", "-c", c.script}, Stdout: &screen, Stderr: &screen, Notes: &screen,
				Live: &fakeLive{stop: true}, OwnGroup: true, StopGrace: 300 * time.Millisecond, Grace: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if res.Stopped != "a compilation after warm-up" || res.Signal != c.signal || time.Since(start) > 20*time.Second {
				t.Errorf("stopped %q, signal %q, exit %d after %v", res.Stopped, res.Signal, res.ExitCode, time.Since(start))
			}
			if res.HeldOpen {
				t.Error("the command's background process outlived the stop: its group was not signalled")
			}
		})
	}
}

// A note after a progress bar's frame the quiet filter left open (a compile record glued after
// it, kept off the terminal) starts on a line of its own: the bar's next frame redraws it. A
// bar's frames begin with a carriage return (Keras's progbar, tqdm).
func TestLiveNoteAfterAnOpenLine(t *testing.T) {
	var screen livetest.Buffer
	q := &Quiet{Lines: []*lazyre.Regexp{lazyre.New(`^COMPILE`)}, Continued: []bool{false}}
	_, err := Run(Options{Command: []string{"sh", "-c", `printf '\r  1/2 [==>   ]COMPILE glued\nnext\n'`},
		Stdout: &screen, Stderr: &screen, Notes: &screen, Live: &fakeLive{}, Quiet: q, Log: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := screen.String(), "\r  1/2 [==>   ]\nNOTE 1\nnext\n"; got != want {
		t.Errorf("the screen shows %q, want %q", got, want)
	}
}

// A note never cuts a line of the program's text in two: when a compilation is logged while the
// program's line is open ("step 3 ... " before its "done"), on the same stream (a glued record
// the quiet filter keeps off the terminal, as under a pseudo-terminal) or on the other (JAX logs
// on stderr while the program prints on stdout), the note waits for the line's end.
func TestLiveNoteWaitsForTheProgramsLine(t *testing.T) {
	q := &Quiet{Lines: []*lazyre.Regexp{lazyre.New(`^COMPILE`)}, Continued: []bool{false}}
	for _, c := range []struct{ name, script string }{
		{"same stream", `printf 'step 3 ... '; sleep 0.5; printf 'COMPILE glued\n'; sleep 0.3; printf 'done\nstep 4\n'`},
		{"other stream", `printf 'step 3 ... '; sleep 0.5; printf 'COMPILE apart\n' >&2; sleep 0.3; printf 'done\nstep 4\n'`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var screen livetest.Buffer
			_, err := Run(Options{Command: []string{"sh", "-c", c.script},
				Stdout: &screen, Stderr: &screen, Notes: &screen, Live: &fakeLive{}, Quiet: q, Log: &bytes.Buffer{}})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := screen.String(), "step 3 ... done\nNOTE 1\nstep 4\n"; got != want {
				t.Errorf("the screen shows %q, want %q", got, want)
			}
		})
	}
}

// A line the program leaves open for long does not hold the note past maxHold: it then starts
// on a line of its own.
func TestLiveNoteWaitsAtMostMaxHold(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits maxHold")
	}
	q := &Quiet{Lines: []*lazyre.Regexp{lazyre.New(`^COMPILE`)}, Continued: []bool{false}}
	var screen livetest.Buffer
	script := fmt.Sprintf(`printf 'step 3 ... '; sleep 0.3; printf 'COMPILE apart\n' >&2; sleep %.1f; printf 'done\n'`, (maxHold + time.Second).Seconds())
	_, err := Run(Options{Command: []string{"sh", "-c", script},
		Stdout: &screen, Stderr: &screen, Notes: &screen, Live: &fakeLive{}, Quiet: q, Log: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := screen.String(), "step 3 ... \nNOTE 1\ndone\n"; got != want {
		t.Errorf("the screen shows %q, want %q", got, want)
	}
}
