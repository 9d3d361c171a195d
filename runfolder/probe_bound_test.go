package runfolder

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// predictCall is a Keras predict() the probe recorded: its begin and end records.
func predictCall(t float64, line int) string {
	return fmt.Sprintf(`{"framework":"keras","event":"predict_begin","model":"7f3c","file":"/w/serve.py","line":%d,"function":"serve","samples":8,"batch_size":32,"t":%.4f,"pid":7}`+"\n"+
		`{"framework":"keras","event":"predict_end","t":%.4f,"pid":7}`+"\n", line, t, t+0.0005)
}

// A loop of identical Keras calls (a predict() per request) is kept as one call from the first
// begin to the last end while nothing else was recorded between them; a record between two
// calls (a compilation) keeps them apart, and a call of another line is a call of its own.
func TestReadProbeFoldsRepeatedCalls(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 1000 {
		b.WriteString(predictCall(float64(i), 40))
	}
	b.WriteString(`{"framework":"jax","event":"compile","name":"jit(predict_step)","t":1000.2,"pid":7}` + "\n")
	for i := range 10 {
		b.WriteString(predictCall(float64(1001+i), 40))
	}
	b.WriteString(predictCall(2000, 41))
	os.WriteFile(filepath.Join(dir, ProbeName), []byte(b.String()), 0o644)
	recs, left, err := ReadProbeCounted(dir)
	if err != nil || left != 0 {
		t.Fatal(err, left)
	}
	var got []string
	for _, r := range recs {
		got = append(got, fmt.Sprintf("%s@%g", r.Event, r.T))
	}
	want := "predict_begin@0 predict_end@999.0005 compile@1000.2 predict_begin@1001 predict_end@1010.0005 predict_begin@2000 predict_end@2000.0005"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
}

// More records than ReadProbe keeps: the first maxProbeRecords are read and the others
// counted, never dropped without a word; the versions the probe writes at exit are kept.
func TestReadProbeCountsWhatItLeavesOut(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range maxProbeRecords + 7 {
		fmt.Fprintf(&b, `{"framework":"jax","event":"compile","name":"jit(f_%d)","t":%d,"pid":7}`+"\n", i, i)
	}
	b.WriteString(`{"framework":"python","event":"versions","versions":{"jax":"0.4.30"},"t":1,"pid":7}` + "\n")
	os.WriteFile(filepath.Join(dir, ProbeName), []byte(b.String()), 0o644)
	recs, left, err := ReadProbeCounted(dir)
	if err != nil || len(recs) != maxProbeRecords || left != 8 {
		t.Errorf("%d records, %d left out, %v", len(recs), left, err)
	}
	if v := ProbeVersions(recs); v["jax"] != "0.4.30" { // written at exit, past the cap
		t.Errorf("versions %v", v)
	}
	os.WriteFile(filepath.Join(dir, LogName), nil, 0o644)
	if _, c, ok := Read(dir); !ok || c.ProbeLeftOut != 8 || !strings.Contains(c.ProbeCapped(), "8 record(s) were not read") {
		t.Errorf("Contents.ProbeLeftOut %d: %q", c.ProbeLeftOut, c.ProbeCapped())
	}
}

// probeLines writes n probe records to w, Keras calls (repeated, as a predict() loop) and
// JAX compilations (each of its own name) in turn.
func probeLines(w io.Writer, n int, distinct bool) {
	var buf []byte
	for i := 0; i < n; i += 2 {
		buf = buf[:0]
		if distinct {
			buf = fmt.Appendf(buf, `{"framework":"jax","event":"trace","name":"f_%d","file":"/work/train.py","line":%d,"function":"main","t":%d.5,"pid":7}`+"\n"+
				`{"framework":"jax","event":"compile","seconds":0.1,"name":"jit(f_%d)","file":"/work/train.py","line":%d,"function":"main","t":%d.6,"pid":7}`+"\n", i, i, i, i, i, i)
		} else {
			buf = append(buf, predictCall(float64(i), 40)...)
		}
		w.Write(buf)
	}
}

// BenchmarkReadProbe reads a probe.jsonl of 1 and 10 million records, a predict() loop's
// repeated calls and as many distinct compilations, and reports the peak heap (sampled).
func BenchmarkReadProbe(b *testing.B) {
	for _, n := range []int{1_000_000, 10_000_000} {
		for _, distinct := range []bool{false, true} {
			kind := "calls"
			if distinct {
				kind = "distinct"
			}
			b.Run(fmt.Sprintf("%s-%dM", kind, n/1_000_000), func(b *testing.B) {
				dir := b.TempDir()
				f, err := os.Create(filepath.Join(dir, ProbeName))
				if err != nil {
					b.Fatal(err)
				}
				probeLines(f, n, distinct)
				st, _ := f.Stat()
				f.Close()
				b.SetBytes(st.Size())
				b.ReportAllocs()
				runtime.GC()
				var peak atomic.Uint64
				stop := make(chan struct{})
				go samplePeak(&peak, stop)
				b.ResetTimer()
				for range b.N {
					recs, left, err := ReadProbeCounted(dir)
					if err != nil || len(recs) == 0 {
						b.Fatal(err, left)
					}
				}
				b.StopTimer()
				close(stop)
				b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
			})
		}
	}
}

// samplePeak records the largest heap in use seen every 5 ms until stop is closed.
func samplePeak(peak *atomic.Uint64, stop chan struct{}) {
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
}
