package ledger

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/recomp/recomp/logscan"
)

// jaxStep is one compilation of jit(step) with the given argument shape, as JAX logs it.
func jaxStep(shape string) string { return jaxCompile("step", shape) }

func jaxCompile(fn, shape string) string {
	return "Compiling jit(" + fn + ") with global shapes and types (ShapedArray(float32[" + shape + "]),). Argument mapping: (UnspecifiedValue,).\n" +
		"Finished XLA compilation of jit(" + fn + ") in 0.1 sec\n"
}

func text(name, log string) Log { return Log{Path: name, Reader: strings.NewReader(log)} }

func readScan(t *testing.T, opt ReadOptions, logs ...Log) *Scan {
	t.Helper()
	s, err := ReadLogs(logs, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// prefixed puts a launcher's rank prefix in front of every line.
func prefixed(prefix, log string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(log, "\n") {
		if l != "" {
			b.WriteString(prefix + l)
		}
	}
	return b.String()
}

// Each log is a process of its own, and so is each rank a launcher interleaved in one log;
// SameProcess reads the logs as one process.
func TestReadLogsProcesses(t *testing.T) {
	a, b := jaxStep("32,8"), jaxStep("24,8")
	two := readScan(t, ReadOptions{}, text("a.log", a), text("b.log", b))
	if r := two.Ledger; r.Processes != 2 || r.Summary.Compilations != 2 || r.Summary.Recompilations != 0 {
		t.Errorf("two logs: %d processes, %+v", r.Processes, r.Summary)
	}
	one := readScan(t, ReadOptions{SameProcess: true}, text("a.log", a), text("b.log", b))
	if r := one.Ledger; r.Processes != 1 || r.Inputs != 2 || r.Summary.Recompilations != 1 || !one.SameProcess {
		t.Errorf("one process in two logs: %d processes, %+v", r.Processes, r.Summary)
	}
	if len(one.Inputs) != 2 || one.Inputs[0].Path != "a.log" || one.Inputs[1].Path != "b.log" {
		t.Errorf("inputs %+v", one.Inputs)
	}

	// Two ranks in one file, every line prefixed: two processes, no unranked one.
	ranks := prefixed("[1,0]<stdout>:", a) + prefixed("[1,1]<stdout>:", a)
	r := readScan(t, ReadOptions{}, text("mpirun.log", ranks)).Ledger
	if r.Processes != 2 || r.Summary.Recompilations != 0 {
		t.Errorf("two ranks: %d processes, %+v", r.Processes, r.Summary)
	}
	// A rank that compiles again recompiles; an unranked compilation is a process of its own.
	r = readScan(t, ReadOptions{}, text("mpirun.log", ranks+prefixed("[1,1]<stdout>:", b)+a)).Ledger
	if r.Processes != 3 || r.Summary.Recompilations != 1 || len(r.Late) != 1 || r.Late[0].Line != 5 {
		t.Errorf("rank 1 recompiles: %d processes, %+v, late %+v", r.Processes, r.Summary, r.Late)
	}
}

// Only the first MaxEvents events are kept, in the order of the logs, read in parallel; all
// are counted. AllEvents keeps them all.
func TestReadLogsEventCap(t *testing.T) {
	const load = "Ending phase: Loading executable (duration 600 ms; diff RSS: 0 MB)\n"
	var logs []Log
	for _, name := range []string{"0.log", "1.log", "2.log"} {
		logs = append(logs, Log{Path: name, Reader: strings.NewReader(strings.Repeat(load, MaxEvents/2+1))})
	}
	s := readScan(t, ReadOptions{}, logs...)
	want := 3 * (MaxEvents/2 + 1)
	if s.EventCount != want || len(s.Events) != MaxEvents || s.Full || s.Ledger.Summary.ExecutableLoads != want {
		t.Fatalf("%d events listed of %d, full %v, %d loads", len(s.Events), s.EventCount, s.Full, s.Ledger.Summary.ExecutableLoads)
	}
	if s.Events[0].File != "0.log" || s.Events[MaxEvents/2+1].File != "1.log" || s.Events[MaxEvents-1].File != "1.log" {
		t.Errorf("events out of order: %s, %s, %s", s.Events[0].File, s.Events[MaxEvents/2+1].File, s.Events[MaxEvents-1].File)
	}
	for i, in := range s.Inputs {
		if in.Events != MaxEvents/2+1 || in.Lines != MaxEvents/2+1 {
			t.Errorf("input %d: %+v", i, in)
		}
	}
	for i := range logs {
		logs[i].Reader = strings.NewReader(strings.Repeat(load, MaxEvents/2+1))
	}
	all := readScan(t, ReadOptions{AllEvents: true}, logs...)
	if len(all.Events) != want || !all.Full || all.Events[want-1].File != "2.log" {
		t.Errorf("all events: %d of %d", len(all.Events), all.EventCount)
	}
}

// The warm-up marker ends the warm-up of each process (the first compilation of a function
// after it is late), and a process in which it never matched is named.
func TestReadLogsMarker(t *testing.T) {
	m, err := logscan.NewLineRegexp("Epoch 2/")
	if err != nil {
		t.Fatal(err)
	}
	s := readScan(t, ReadOptions{Marker: m}, text("a.log", jaxStep("32,8")+"Epoch 2/3\n"+jaxCompile("eval", "32,8")), text("b.log", jaxStep("32,8")))
	if s.Ledger.Summary.AfterWarmup != 1 {
		t.Errorf("after the marker: %+v", s.Ledger.Summary)
	}
	found := false
	for _, f := range s.Ledger.Findings {
		found = found || f.Kind == FindingMarkerNotFound && f.File == "b.log"
	}
	if !found {
		t.Errorf("b.log never matched the marker, and no finding says so: %+v", s.Ledger.Findings)
	}
}

// Paths are opened like every input of recomp: a run folder is its run.log, "-" is standard
// input (once), gzip is read, a log cut short is counted up to where it breaks; one that cannot
// be opened is an error naming it.
func TestReadLogsFiles(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	os.Mkdir(run, 0o755)
	os.WriteFile(filepath.Join(run, "run.log"), []byte(jaxStep("32,8")), 0o644)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(strings.Repeat(jaxStep("32,8"), 200)))
	zw.Close()
	cut := filepath.Join(dir, "cut.log.gz")
	os.WriteFile(cut, z.Bytes()[:z.Len()/2], 0o644)

	s, err := ReadLogs(Files([]string{run, "-", cut}), ReadOptions{Stdin: strings.NewReader(jaxStep("24,8"))})
	if err != nil {
		t.Fatal(err)
	}
	if s.Inputs[0].Path != filepath.Join(run, "run.log") || s.Inputs[0].Lines != 2 || s.Inputs[1].Path != "-" {
		t.Errorf("inputs %+v", s.Inputs)
	}
	if s.Events[2].File != "<stdin>" {
		t.Errorf("standard input's events name %q", s.Events[2].File)
	}
	in := s.Inputs[2]
	if in.ReadError == "" || in.Lines == 0 || in.Lines >= 400 || in.WarningCount == 0 || !strings.Contains(in.Warnings[len(in.Warnings)-1].Message, "read error after line") {
		t.Errorf("a cut gzip: %+v", in)
	}
	if got := s.ReadErrors(); len(got) != 1 || !strings.HasPrefix(got[0], cut+": read error after line") {
		t.Errorf("read errors %q", got)
	}

	for _, c := range []struct {
		paths []string
		err   string
	}{
		{[]string{"-", run, "-"}, "'-' (standard input) is given 2 times"},
		{[]string{run, dir}, dir + ": is a directory, not a log file"},
		{[]string{run, filepath.Join(dir, "missing.log"), dir}, "missing.log"},
	} {
		if _, err := ReadLogs(Files(c.paths), ReadOptions{Stdin: strings.NewReader("")}); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%v: error %v, want %q", c.paths, err, c.err)
		}
	}
	// A reader is read in place of its path: "-" twice is two logs, not standard input.
	if _, err := ReadLogs([]Log{text("-", ""), text("-", "")}, ReadOptions{}); err != nil {
		t.Errorf("two readers named -: %v", err)
	}
}

// Logs read in parallel list the first MaxEvents events in input order, whatever order the logs
// finish in, while the logs after those events keep none.
func TestReadLogsFirstEvents(t *testing.T) {
	var logs []Log
	var want, texts []string
	for i := range 9 {
		var b strings.Builder
		for j := range 300 {
			b.WriteString(jaxCompile(fmt.Sprintf("f%d_%d", i, j), "2"))
			if len(want) < 2*MaxEvents { // two events per compilation
				want = append(want, fmt.Sprintf("log%d.log:%d", i, 2*j+1), fmt.Sprintf("log%d.log:%d", i, 2*j+2))
			}
		}
		logs = append(logs, text(fmt.Sprintf("log%d.log", i), b.String()))
		texts = append(texts, b.String())
	}
	want = want[:MaxEvents]
	for range 5 {
		s := readScan(t, ReadOptions{}, logs...)
		var got []string
		for _, ev := range s.Events {
			got = append(got, fmt.Sprintf("%s:%d", ev.File, ev.Line))
		}
		if s.EventCount != 9*600 || !slices.Equal(got, want) {
			t.Fatalf("%d events counted, listed %d: %v … want %v …", s.EventCount, len(got), got[:min(3, len(got))], want[:3])
		}
		for i := range logs {
			logs[i].Reader = strings.NewReader(texts[i])
		}
	}
}

// Two processes writing one log (spawned workers under one terminal) compile the same function
// with the same arguments: two records alike but for their own times are two requests; a record
// a program's two logging handlers printed twice (the same time, or a copy without one) is one.
func TestAlikeRecordsOfTwoProcesses(t *testing.T) {
	rec := func(stamp string) string {
		return "WARNING:2026-11-27 00:11:" + stamp + ":jax._src.interpreters.pxla:732: Compiling jit(convert_element_type) with global shapes and types (ShapedArray(float32[]),). Argument mapping: (UnspecifiedValue,).\n"
	}
	bare := "Compiling jit(convert_element_type) with global shapes and types (ShapedArray(float32[]),). Argument mapping: (UnspecifiedValue,).\n"
	for _, c := range []struct {
		name, log string
		want      int
	}{
		{"two processes", rec("26,764") + "I1127 00:11:26.787594    2229 pjrt_client.cc:587] PjRt-IFRT device count: total=1\n" + rec("26,788"), 2},
		{"two handlers, one time", rec("26,764") + rec("26,764"), 1},
		{"two handlers, one without a time", rec("26,764") + bare, 1},
		{"two handlers, a coarser time", rec("26,764") + "WARNING:2026-11-27 00:11:26:jax._src.interpreters.pxla:732: " + bare, 1},
	} {
		s, err := ReadLogs([]Log{{Path: "run.log", Reader: strings.NewReader(c.log)}}, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Ledger.Summary.CompileRequests; got != c.want {
			t.Errorf("%s: %d compile requests, want %d", c.name, got, c.want)
		}
	}
}

// A log read until a line ends there: the lines after it are not read, whatever the reads'
// sizes.
func TestReadUntilLine(t *testing.T) {
	text := "a\nbb\nccc\ndddd\n"
	for _, until := range []int64{1, 2, 3, 4, 9} {
		for size := 1; size <= len(text); size++ {
			r := &untilLine{r: iotest.OneByteReader(strings.NewReader(text)), left: until}
			if size > 1 {
				r.r = &chunked{s: text, n: size}
			}
			b, err := io.ReadAll(r)
			want := text
			if until < 4 {
				want = strings.Join(strings.SplitAfter(text, "\n")[:until], "")
			}
			if err != nil || string(b) != want {
				t.Errorf("until %d, reads of %d: %q (%v), want %q", until, size, b, err, want)
			}
		}
	}
}

// chunked reads s n bytes at a time.
type chunked struct {
	s string
	n int
}

func (c *chunked) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.s)
	c.s = c.s[k:]
	return k, nil
}
