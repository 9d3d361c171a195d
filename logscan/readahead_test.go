package logscan_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/logscan"
)

// scanAll reads r to the end and returns the events, the stats and the error.
func scanAll(r io.Reader, opt logscan.Options) ([]logscan.Event, logscan.Stats, error) {
	s := logscan.NewScanner(r, "t.log", opt)
	defer s.Close()
	var evs []logscan.Event
	for s.Scan() {
		evs = append(evs, s.Event())
	}
	return evs, s.Stats(), s.Err()
}

// checkReadAhead: reading ahead gives the events, stats and error reading in turn gives, whole
// reads or a few bytes at a time, with small buffers (long lines in pieces, lines cut across
// reads).
func checkReadAhead(t *testing.T, data []byte, small int) {
	t.Helper()
	opt := logscan.Options{Grammar: frameworks.Grammar(), BufSize: 64 + (small&0xff)*8}
	if small&0x100 != 0 {
		opt.BufSize = 0
	}
	if small&0x200 != 0 {
		opt.Marker = mustLineRegexp(`^Epoch 2/`)
	}
	readers := map[string]func() io.Reader{
		"whole":  func() io.Reader { return bytes.NewReader(data) },
		"halves": func() io.Reader { return iotest.HalfReader(bytes.NewReader(data)) },
		"error":  func() io.Reader { return iotest.TimeoutReader(iotest.HalfReader(bytes.NewReader(data))) },
	}
	for name, r := range readers {
		want, wantSt, wantErr := scanAll(r(), opt)
		ahead := opt
		ahead.ReadAhead = true
		got, gotSt, gotErr := scanAll(r(), ahead)
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotSt, wantSt) || (gotErr == nil) != (wantErr == nil) ||
			gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Fatalf("%s reader, %d bytes, buffer %d: read ahead: %d events, %+v, %v; in turn: %d events, %+v, %v",
				name, len(data), opt.BufSize, len(got), gotSt, gotErr, len(want), wantSt, wantErr)
		}
	}
}

func TestReadAheadSameScan(t *testing.T) {
	var b bytes.Buffer
	logscan.WriteSynthetic(&b, logscan.Synthetic{Size: 3 << 20, Every: 7})
	dense := b.String() + "Epoch 2/3\n" + strings.Repeat("x", 3000) + "Begin XLA compilation: m  (Hash: 0x1) for ordinal  0\n" +
		"Begin XLA compilation: cut  (Hash: 0x2"
	checkReadAhead(t, []byte(dense), 0x100|0x200)
	checkReadAhead(t, []byte(dense[:200<<10]), 5)
	checkReadAhead(t, []byte(""), 0)
	checkReadAhead(t, []byte("\x00\x01binary"), 0)
	files, _ := filepath.Glob("../testdata/runs/*/*/run.log")
	for _, f := range files[:min(len(files), 20)] {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkReadAhead(t, data, 3)
		checkReadAhead(t, data, 0x100)
	}
}

// A Scanner dropped before the end of its input stops its read-ahead goroutine on Close.
func TestReadAheadClose(t *testing.T) {
	var b bytes.Buffer
	logscan.WriteSynthetic(&b, logscan.Synthetic{Size: 8 << 20, Every: 20})
	before := runtime.NumGoroutine()
	s := logscan.NewScanner(&b, "t.log", logscan.Options{Grammar: frameworks.Grammar(), ReadAhead: true, BufSize: 4096})
	if !s.Scan() {
		t.Fatal("no event")
	}
	if n := runtime.NumGoroutine(); n <= before {
		t.Fatalf("%d goroutines while reading ahead, %d before", n, before)
	}
	s.Close()
	s.Close()
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after Close, %d before", runtime.NumGoroutine(), before)
		}
	}
}

func FuzzReadAhead(f *testing.F) {
	f.Add([]byte("Begin XLA compilation: m  (Hash: 0x1) for ordinal  0\r\nGraph compilation:  5%|| 5/100 [00:01<00:09]\x00\xff"), 7)
	f.Add([]byte("[rank1]:TRACING CACHE MISS at a.py:1 (f):\n[rank0]:Epoch 2/3\n[rank1]:  for f defined at a.py:1\n"+
		"[1,3]<stderr>:Compiling jit(f) with global shapes and types (x). Argument mapping: (y).\n7: Epoch 2/3\r\n"), 0x201)
	f.Fuzz(checkReadAhead)
}
