package torch_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/internal/scantest"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/logscan"
)

// A real torch 2.9 structured trace (TORCH_TRACE, aot_eager, recompile_limit 2: sizes 2, 3, 4, 5
// and a new float): its compilation_metrics are every compilation, the first one included, with
// dynamo's own seconds and the recompile reason; the third compile id failed at the limit.
func TestTraceCompilations(t *testing.T) {
	b, err := os.ReadFile("testdata/trace-2.9.log")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ledger.ReadLogs([]ledger.Log{{Path: "trace.log", Reader: bytes.NewReader(b)}}, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sm := s.Ledger.Summary
	// entire_frame_compile_time_s: 0.244154 + 56.447625 (a machine five helpers shared)
	if sm.Compilations != 2 || sm.Recompilations != 1 || sm.CompileTime != 244154*time.Microsecond+56447625*time.Microsecond {
		t.Errorf("compilations %d, recompilations %d, compile time %v", sm.Compilations, sm.Recompilations, sm.CompileTime)
	}
	var found, limit bool
	for _, m := range s.Ledger.Modules {
		found = found || m.Family == "tr.py:3 (f)" && m.Compilations == 2
	}
	for _, f := range s.Ledger.Findings {
		limit = limit || strings.Contains(f.Message, "recompile limit") && strings.Contains(f.Message, "runs eagerly")
	}
	if !found || !limit {
		t.Errorf("modules %+v findings %+v", s.Ledger.Modules, s.Ledger.Findings)
	}
	evs, _ := scantest.Scan(t, string(b), logscan.Options{})
	for _, ev := range evs {
		if ev.Kind == logscan.CompileBegin && ev.SeenBefore && ev.Reason != "tensor 'x' size mismatch at index 0. expected 2, actual 3" {
			t.Errorf("reason %q", ev.Reason)
		}
	}
}

// BenchmarkScanTrace scans a real structured trace (TORCH_TRACE), repeated to 32 MiB, as recomp
// reads a trace file (frameworks.TraceGrammar): most of its lines are records recomp skips
// (chromium events, tensor descriptions, payloads). BenchmarkScanTraceAsLog reads it with every
// stack's grammar, as a trace under another name is read.
func BenchmarkScanTrace(b *testing.B)      { benchmarkTrace(b, frameworks.TraceGrammar()) }
func BenchmarkScanTraceAsLog(b *testing.B) { benchmarkTrace(b, frameworks.Grammar()) }

func benchmarkTrace(b *testing.B, g *logscan.Grammar) {
	one, err := os.ReadFile("testdata/trace-2.9.log")
	if err != nil {
		b.Fatal(err)
	}
	data := bytes.Repeat(one, 32<<20/len(one)+1)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		s := logscan.NewScanner(bytes.NewReader(data), "bench", logscan.Options{Grammar: g})
		n := 0
		for s.Scan() {
			n++
		}
		if n == 0 {
			b.Fatal("no events")
		}
	}
	if used := cpuTime() - cpu; used > 0 {
		b.ReportMetric(float64(b.N)*float64(len(data))/1e6/used.Seconds(), "MB/cpu-s")
	}
}

// FuzzTrace feeds the trace reader any text after real trace records: no panic, no hang.
func FuzzTrace(f *testing.F) {
	b, err := os.ReadFile("testdata/trace-2.9.log")
	if err != nil {
		f.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, `{"compilation_metrics": `) || strings.Contains(l, `{"dynamo_start": `) || strings.Contains(l, `{"str": [`) {
			f.Add(l)
		}
	}
	f.Add(`V1 00:00:00.000000 1 t.py:1] {"compilation_metrics": {"compile_id": "0/1", "backend_compile_time_s": 1, "entire_frame_compile_time_s": -1e300}, "frame_id": 0, "frame_compile_id": 1}`)
	f.Fuzz(func(t *testing.T, line string) {
		s := logscan.NewScanner(strings.NewReader(line+"\n"+line+"\n"), "fuzz", logscan.Options{Grammar: frameworks.Grammar()})
		for s.Scan() {
		}
	})
}

// A trace folder (TORCH_TRACE=DIR, made without recomp) is read as its trace files: the same
// counts as the file alone; other files in it are left alone.
func TestTraceFolder(t *testing.T) {
	b, err := os.ReadFile("testdata/trace-2.9.log")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "dedicated_log_torch_trace_m3l311la.log"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("Recompiling function f in /w/a.py:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ledger.ReadLogs([]ledger.Log{{Path: dir}}, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sm := s.Ledger.Summary; len(s.Inputs) != 1 || sm.Compilations != 2 || sm.Recompilations != 1 {
		t.Errorf("inputs %d, compilations %d, recompilations %d", len(s.Inputs), sm.Compilations, sm.Recompilations)
	}
	if _, err := ledger.ReadLogs([]ledger.Log{{Path: t.TempDir()}}, ledger.ReadOptions{}); err == nil {
		t.Error("a folder with no trace read as a log")
	}
}

// A second run of one program with Inductor's cache kept (torch 2.9, the trace of the second
// run, gzipped): dynamo compiled the frame once more and Inductor's FX-graph cache served its
// graph (torch's counters: fxgraph_cache_hit 1): one compilation, one cache hit.
func TestTraceFXGraphCacheHit(t *testing.T) {
	s, err := ledger.ReadLogs([]ledger.Log{{Path: "testdata/trace-fxcache-hit-2.9.log.gz"}}, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sm := s.Ledger.Summary; sm.Compilations != 1 || sm.CacheHits != 1 || sm.Recompilations != 0 || sm.UnreadRecords != 0 {
		t.Errorf("%+v", sm)
	}
}

// After the recompile limit the function runs eagerly: how many calls did is said only where
// the trace records them (a record of the limit each); dynamo 2.9 records the first alone.
func TestTraceEagerCallsAfterTheLimit(t *testing.T) {
	b, err := os.ReadFile("testdata/trace-2.9.log")
	if err != nil {
		t.Fatal(err)
	}
	var limit string
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if strings.Contains(l, `{"compilation_metrics": {"compile_id": "0/2"`) {
			limit = l
		}
	}
	for _, c := range []struct {
		text, want string
	}{
		{string(b), "the call that reached it ran eagerly, and how many more did is not recorded"},
		{string(b) + strings.Replace(limit, `"compile_id": "0/2"`, `"compile_id": "0/3"`, 1), "2 calls that reached the limit are recorded"},
	} {
		s, err := ledger.ReadLogs([]ledger.Log{{Path: "trace.log", Reader: strings.NewReader(c.text)}}, ledger.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, f := range s.Ledger.Findings {
			found = found || strings.Contains(f.Message, "recompile limit") && strings.Contains(f.Message, c.want)
		}
		if !found || limit == "" {
			t.Errorf("no finding saying %q: %+v", c.want, s.Ledger.Findings)
		}
	}
}
