package torch

import (
	"bufio"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// readMetrics (its fields after the configs found from the record's end) reads what one pass
// over the whole record reads, on every compilation_metrics record of the real traces here and
// in the torch-2.9 runs, and on each of them cut or with a field taken out.
func TestReadMetricsAsWhole(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/runs/torch-2.9/*/trace/*")
	files = append(files, "testdata/trace-2.9.log", "testdata/trace-fxcache-hit-2.9.log.gz")
	n := 0
	for _, f := range files {
		for _, msg := range metricsRecords(t, f) {
			n++
			checkMetrics(t, msg)
			for _, key := range []string{"recompile_reason", "frame_id", "frame_compile_id", "co_name", "restart_reasons"} {
				checkMetrics(t, strings.Replace(msg, `"`+key+`": `, `"`+key+`_x": `, 1))
			}
			for cut := len(msg) - 1; cut > len(msg)-200; cut -= 7 {
				checkMetrics(t, msg[:cut])
			}
		}
	}
	if n < 5 {
		t.Fatalf("%d records", n)
	}
}

func FuzzReadMetrics(f *testing.F) {
	for _, msg := range metricsRecords(f, "testdata/trace-2.9.log") {
		f.Add(msg)
	}
	f.Add(`{"compilation_metrics": {"compile_id": "0/1", "recompile_reason": "\"frame_id\": 3"}, "frame_id": 0, "frame_compile_id": 1}`)
	f.Fuzz(func(t *testing.T, msg string) { checkMetrics(t, msg) })
}

// checkMetrics fails unless readMetrics reads what one pass does wherever one pass reads a
// record (a record broken in its middle that one pass refuses may still be read by its ends).
func checkMetrics(t *testing.T, msg string) {
	t.Helper()
	got, ok := readMetrics(msg)
	want, wok := readMetricsWhole(msg)
	if wok && (!ok || !reflect.DeepEqual(got, want)) {
		t.Fatalf("%.120q…: read %v %+v, one pass %v %+v", msg, ok, got, wok, want)
	}
}

// metricsRecords are the messages of the compilation_metrics records of a trace file.
func metricsRecords(t testing.TB, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		if r, err = gzip.NewReader(f); err != nil {
			t.Fatal(err)
		}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	var out []string
	for sc.Scan() {
		if _, msg, ok := strings.Cut(sc.Text(), "] "); ok && strings.HasPrefix(msg, metricsPrefix) {
			out = append(out, msg)
		}
	}
	return out
}
