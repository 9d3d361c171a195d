package ledger

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// retraceLine is TF's retracing warning about a function of its own name.
func retraceLine(i int) string {
	return fmt.Sprintf("WARNING:tensorflow:5 out of the last 5 calls to <function step_%d at 0x7f%08x> triggered tf.function retracing. "+
		"Tracing is expensive and the excessive number of tracings could be due to (1) creating @tf.function repeatedly in a loop.\n", i, i)
}

// Retracing warnings about more functions than a report lists one by one (a tf.function made
// anew in a loop): every warning is counted, the first maxRetraceNotes functions are listed,
// and one finding says how many warnings were not.
func TestRetraceNamesAreCapped(t *testing.T) {
	const names = maxRetraceNotes + 500
	var b strings.Builder
	for i := range names {
		b.WriteString(retraceLine(i))
	}
	b.WriteString(retraceLine(0)) // a function listed already: listed, not counted apart
	rep := report(t, Options{}, b.String())
	listed, said := 0, ""
	for _, f := range rep.Findings {
		if f.Kind == FindingFrequentRetracing {
			listed++
			said = f.Message
		}
	}
	if rep.Summary.Retraces != names+1 || rep.Summary.RetracesNotListed != 500 || listed != maxRetraceNotes+1 ||
		said != fmt.Sprintf("500 warning(s) about functions beyond the first %d warned about are counted, not listed", maxRetraceNotes) {
		t.Errorf("%d retraces, %d not listed, %d findings, the last %q", rep.Summary.Retraces, rep.Summary.RetracesNotListed, listed, said)
	}
}

// retraceReader writes n retracing warnings, each about a function of its own name, as it is
// read: a log of any length without holding it.
type retraceReader struct {
	i, n int
	buf  []byte
}

func (r *retraceReader) Read(p []byte) (int, error) {
	for len(r.buf) < len(p) && r.i < r.n {
		r.buf = append(r.buf, retraceLine(r.i)...)
		r.i++
	}
	if len(r.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.buf)
	r.buf = r.buf[:copy(r.buf, r.buf[n:])]
	return n, nil
}

// BenchmarkRetraceNames reads logs of 1 and 10 million retracing warnings about distinct
// functions, and reports the peak heap (sampled): it must not grow with the names.
func BenchmarkRetraceNames(b *testing.B) {
	for _, n := range []int{1_000_000, 10_000_000} {
		b.Run(fmt.Sprintf("%dM", n/1_000_000), func(b *testing.B) {
			b.SetBytes(int64(n * len(retraceLine(n/2))))
			b.ReportAllocs()
			runtime.GC()
			var peak atomic.Uint64
			stop := make(chan struct{})
			go func() {
				var ms runtime.MemStats
				for {
					select {
					case <-stop:
						return
					case <-time.After(5 * time.Millisecond):
					}
					runtime.ReadMemStats(&ms)
					if ms.HeapInuse > peak.Load() {
						peak.Store(ms.HeapInuse)
					}
				}
			}()
			for range b.N {
				s, err := ReadLogs([]Log{{Path: "retrace.log", Reader: &retraceReader{n: n}}}, ReadOptions{})
				if err != nil || s.Ledger.Summary.Retraces != n {
					b.Fatal(err, s.Ledger.Summary.Retraces)
				}
			}
			b.StopTimer()
			close(stop)
			b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
		})
	}
}
