package ledger

import (
	"bytes"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/recomp/recomp/logscan"
)

// The scanner reading ahead in a goroutine of its own (more than one CPU) gives the same scan as
// reading in turn (one CPU): the same events in the same order, over many batches, with ranks,
// a marker and glued records.
func TestReadLogsPipelineSameResult(t *testing.T) {
	var b bytes.Buffer
	logscan.WriteSynthetic(&b, logscan.Synthetic{Compilations: 3*eventBatch + 17, Loads: 2 * eventBatch, Every: 3, Families: 5})
	mixed := b.String() + prefixed("[1,0]<stdout>:", jaxStep("32,8")+"Epoch 2/3\n"+jaxStep("24,8")) +
		prefixed("[1,1]<stdout>:", jaxStep("32,8")) + jaxStep("16,8") + jaxStep("8,8")
	m, err := logscan.NewLineRegexp("Epoch 2/")
	if err != nil {
		t.Fatal(err)
	}
	read := func(procs int) *Scan {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		return readScan(t, ReadOptions{Marker: m, AllEvents: true},
			text("mixed.log", mixed), text("second.log", jaxStep("32,8")+jaxStep("32,8")))
	}
	one, two := read(1), read(2)
	if one.EventCount < 4*eventBatch || one.Ledger.Summary.Recompilations == 0 || one.Ledger.Processes < 3 {
		t.Fatalf("the log is too plain to tell: %d events, %+v", one.EventCount, one.Ledger.Summary)
	}
	if !reflect.DeepEqual(one, two) {
		t.Errorf("one CPU and two differ:\n%+v\n%+v", one.Ledger.Summary, two.Ledger.Summary)
	}
}

type panicReader struct{ n int }

func (p *panicReader) Read(b []byte) (int, error) {
	if p.n++; p.n > 3 {
		panic("reader broke")
	}
	line := "Ending phase: Loading executable (duration 600 ms; diff RSS: 0 MB)\n"
	return copy(b, strings.Repeat(line, min(64, len(b)/len(line)))), nil
}

// A panic while the scanner reads ahead is raised in the caller's goroutine (where recomp
// reports it), not lost with the goroutine.
func TestReadLogsPipelinePanic(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	defer func() {
		if r := recover(); r != "reader broke" {
			t.Errorf("recovered %v", r)
		}
	}()
	_, _ = ReadLogs([]Log{{Path: "broken.log", Reader: &panicReader{}}}, ReadOptions{SameProcess: true})
	t.Error("no panic")
}

// A read error part-way is reported as before.
func TestReadLogsPipelineReadError(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	r := &errReader{data: strings.Repeat(jaxStep("32,8"), 2*eventBatch)}
	s := readScan(t, ReadOptions{}, Log{Path: "cut.log", Reader: r})
	if in := s.Inputs[0]; in.ReadError == "" || s.Ledger.Summary.Compilations != 2*eventBatch {
		t.Errorf("input %+v, %d compilations", in, s.Ledger.Summary.Compilations)
	}
}

type errReader struct {
	data string
	off  int
}

func (e *errReader) Read(b []byte) (int, error) {
	if e.off >= len(e.data) {
		return 0, errors.New("disk gone")
	}
	n := copy(b, e.data[e.off:])
	e.off += n
	return n, nil
}
