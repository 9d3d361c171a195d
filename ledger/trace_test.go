package ledger

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/runfolder"
)

// traceLog is what TORCH_LOGS=recompiles,dynamo prints for the program of
// frameworks/torch/testdata/trace-2.9.log (f in /w/tr.py:3, recompile limit 2: sizes 2, 3, 4):
// compile ids 0/0 and 0/1 compiled, 0/2 stopped at the limit.
const traceLog = `I1202 03:30:00.000000 7000 torch/_dynamo/symbolic_convert.py:3842] [0/0] Step 1: torchdynamo start tracing f /w/tr.py:3
I1202 03:30:00.100000 7000 torch/_dynamo/output_graph.py:2167] [0/0] Step 2: calling compiler function aot_eager
I1202 03:30:00.200000 7000 torch/_dynamo/output_graph.py:2172] [0/0] Step 2: done compiler function aot_eager
V1202 03:30:01.000000 7000 torch/_dynamo/guards.py:4181] [0/1] [__recompiles] Recompiling function f in /w/tr.py:3
V1202 03:30:01.000000 7000 torch/_dynamo/guards.py:4181] [0/1] [__recompiles]     triggered by the following guard failure(s):
V1202 03:30:01.000000 7000 torch/_dynamo/guards.py:4181] [0/1] [__recompiles]     - 0/0: tensor 'x' size mismatch at index 0. expected 2, actual 3
I1202 03:30:01.100000 7000 torch/_dynamo/symbolic_convert.py:3842] [0/1] Step 1: torchdynamo start tracing f /w/tr.py:3
I1202 03:30:01.200000 7000 torch/_dynamo/output_graph.py:2167] [0/1] Step 2: calling compiler function aot_eager
I1202 03:30:02.300000 7000 torch/_dynamo/output_graph.py:2172] [0/1] Step 2: done compiler function aot_eager
V1202 03:30:03.000000 7000 torch/_dynamo/guards.py:4181] [0/2] [__recompiles] Recompiling function f in /w/tr.py:3
V1202 03:30:03.000000 7000 torch/_dynamo/guards.py:4181] [0/2] [__recompiles]     triggered by the following guard failure(s):
V1202 03:30:03.000000 7000 torch/_dynamo/guards.py:4181] [0/2] [__recompiles]     - 0/1: tensor 'x' size mismatch at index 0. expected 3, actual 4
W1202 03:30:03.100000 7000 torch/_dynamo/convert_frame.py:1358] [0/2] torch._dynamo hit config.recompile_limit (2)
W1202 03:30:03.100000 7000 torch/_dynamo/convert_frame.py:1358] [0/2]    function: 'f' (/w/tr.py:3)
W1202 03:30:03.100000 7000 torch/_dynamo/convert_frame.py:1358] [0/2]    last reason: 0/1: tensor 'x' size mismatch at index 0. expected 3, actual 4
`

// the trace's own entire_frame_compile_time_s of 0/0 and 0/1
const trace00, trace01 = 244154 * time.Microsecond, 56447625 * time.Microsecond

// A run folder with a log and a trace of the same process (recomp run turns both on): each
// compilation counted once, with the trace's seconds, whichever of the two shows it alone.
func TestRunFolderTraceJoined(t *testing.T) {
	trace, err := os.ReadFile("../frameworks/torch/testdata/trace-2.9.log")
	if err != nil {
		t.Fatal(err)
	}
	second := strings.Index(string(trace), `{"compilation_metrics": {"compile_id": "0/1"`)
	cutTrace := trace[:strings.LastIndexByte(string(trace[:second]), '\n')+1] // the process killed before 0/1's record
	var noSteps []string                                                      // TORCH_LOGS=recompiles: no record of 0/0
	for _, l := range strings.SplitAfter(traceLog, "\n") {
		if !strings.Contains(l, "Step ") {
			noSteps = append(noSteps, l)
		}
	}
	for _, c := range []struct {
		name, log string
		trace     []byte
		want      time.Duration // compile time
		// the log's own time of 0/1 (1.2 s from calling to done, begun at its recompile record)
	}{
		{"both", traceLog, trace, trace00 + trace01},
		{"log without the first", strings.Join(noSteps, ""), trace, trace00 + trace01},
		{"trace cut", traceLog, cutTrace, trace00 + 1300*time.Millisecond},
		{"log alone", traceLog, nil, 200*time.Millisecond + 1300*time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, runfolder.LogName), c.log)
			if c.trace != nil {
				write(t, filepath.Join(dir, runfolder.TraceName, "dedicated_log_torch_trace_ab12cd.log"), string(c.trace))
			}
			s, err := ReadLogs([]Log{{Path: dir}}, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			sm := s.Ledger.Summary
			if sm.Compilations != 2 || sm.Recompilations != 1 || sm.CompileTime != c.want {
				t.Errorf("compilations %d, recompilations %d, compile time %v; want 2, 1, %v", sm.Compilations, sm.Recompilations, sm.CompileTime, c.want)
			}
			limits := 0
			for _, f := range s.Ledger.Findings {
				if strings.Contains(f.Message, "recompile limit") {
					limits++
				}
			}
			if limits != 1 {
				t.Errorf("%d findings of the recompile limit, want 1: %+v", limits, s.Ledger.Findings)
			}
			for _, ev := range s.Events {
				if ev.Reason != "" && !strings.Contains(ev.Reason, "size mismatch at index 0") {
					t.Errorf("reason %q", ev.Reason)
				}
			}
		})
	}
}

// Several processes' traces in one run folder (a trace file a process, one run.log for all): their
// compile ids repeat, so the log is read alone, with a warning — never one process's trace
// standing in for another's compilations.
func TestRunFolderSeveralTracesNotJoined(t *testing.T) {
	trace, err := os.ReadFile("../frameworks/torch/testdata/trace-2.9.log")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, runfolder.LogName), traceLog)
	for _, n := range []string{"a1", "b2"} {
		write(t, filepath.Join(dir, runfolder.TraceName, "dedicated_log_torch_trace_"+n+".log"), string(trace))
	}
	s, err := ReadLogs([]Log{{Path: dir}}, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sm := s.Ledger.Summary; sm.Compilations != 2 || sm.CompileTime != 200*time.Millisecond+1300*time.Millisecond {
		t.Errorf("compilations %d, compile time %v; want the log's own 2 and 1.5s", sm.Compilations, sm.CompileTime)
	}
	warned := false
	for _, in := range s.Inputs {
		for _, w := range in.Warnings {
			warned = warned || strings.Contains(w.Message, "not joined")
		}
	}
	if !warned {
		t.Errorf("no warning that the traces were not joined: %+v", s.Inputs)
	}
}

// A trace folder of the user's own (their TORCH_TRACE, kept by recomp run and named in the
// manifest): only the files written since the run started are the run's.
func TestRunFolderUsersTrace(t *testing.T) {
	trace, err := os.ReadFile("../frameworks/torch/testdata/trace-2.9.log")
	if err != nil {
		t.Fatal(err)
	}
	dir, mine := t.TempDir(), t.TempDir()
	start := time.Now()
	write(t, filepath.Join(dir, runfolder.LogName), traceLog)
	old := filepath.Join(mine, "dedicated_log_torch_trace_old.log")
	write(t, old, string(trace))
	if err := os.Chtimes(old, start.Add(-time.Hour), start.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(mine, "dedicated_log_torch_trace_new.log"), string(trace))
	m, _ := json.Marshal(runfolder.Manifest{Version: 1, Start: start, TraceDir: mine})
	write(t, filepath.Join(dir, runfolder.ManifestName), string(m))
	s, err := ReadLogs([]Log{{Path: dir}}, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sm := s.Ledger.Summary; sm.Compilations != 2 || sm.CompileTime != trace00+trace01 {
		t.Errorf("compilations %d, compile time %v; want 2, %v (the earlier run's trace left out)", sm.Compilations, sm.CompileTime, trace00+trace01)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
