package runfolder

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// ProbeTail gives each record once, when its line is whole, across writes that cut lines
// anywhere; a line over the limit is skipped to its end; what ReadProbe reads of the whole
// file is what the tail gave.
func TestProbeTail(t *testing.T) {
	dir := t.TempDir()
	tail := NewProbeTail(dir)
	defer tail.Close()
	if got := tail.Next(); len(got) != 0 {
		t.Fatalf("no probe.jsonl yet: %+v", got)
	}
	f, err := os.Create(filepath.Join(dir, ProbeName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	long := `{"event":"compile","x":"` + strings.Repeat("a", maxProbeLine) + `"}` + "\n"
	text := `{"event":"trace","pid":7,"seconds":0.5}` + "\n" + long + "not json\n" + `{"event":"compile","pid":8,"seconds":1.25}` + "\n"
	var got []ProbeRecord
	written := 0
	for _, cut := range []int{10, 39, 40, 41, 70000, len(text) - 3, len(text)} {
		if _, err := f.WriteString(text[written:cut]); err != nil {
			t.Fatal(err)
		}
		written = cut
		got = append(got, tail.Next()...)
	}
	if len(got) != 2 || got[0].Event != "trace" || got[0].PID != 7 || got[1].Event != "compile" || got[1].PID != 8 || got[1].Seconds != 1.25 {
		t.Errorf("tail: %+v", got)
	}
	whole, err := ReadProbe(dir)
	if err != nil || len(whole) != len(got) {
		t.Errorf("ReadProbe: %d records (%v), the tail %d", len(whole), err, len(got))
	}
}

// A probe.jsonl that is a named pipe is never read (nor waited on).
func TestProbeTailFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, ProbeName), 0o600); err != nil {
		t.Skip(err)
	}
	tail := NewProbeTail(dir)
	defer tail.Close()
	if got := tail.Next(); len(got) != 0 || !tail.failed {
		t.Errorf("%+v, failed %v", got, tail.failed)
	}
}
