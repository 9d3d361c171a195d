package ledger

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// jaxLines is a log of JAX's records, each a millisecond after the one before, or alike in time
// to the one before while inStep (two processes in step).
type jaxLines struct {
	strings.Builder
	ms     int
	inStep bool
}

func (l *jaxLines) line(format string, a ...any) {
	if !l.inStep || l.ms == 0 {
		l.ms++
	}
	fmt.Fprintf(l, "WARNING:2026-12-03 10:24:45,%03d:"+format+"\n", append([]any{l.ms}, a...)...)
}

// Two processes write one log (pytest -n's workers into one run.log, a persistent cache set):
// each compiles step twice, at the same moments, their lines interleaved; the first time their
// requests are alike to the millisecond, and their compilations took the same time, which a
// record printed twice would be too. The stages with a duration are routed by the probe's
// records; the lines between them carry none (JAX's explanation of each trace, the persistent
// cache's miss and its entry not written, the cache key's parts) and go with the process whose
// trace or request they are about. Nothing is left to a third process of unrouted lines, which
// would count each cache miss as a compilation.
func TestRoutedLinesBetweenStages(t *testing.T) {
	var log jaxLines
	var stages []StageRecord
	line := log.line
	for round, shape := range []string{"8", "16"} {
		for _, pid := range []int{11, 22} {
			if round == 0 {
				line("jax._src.interpreters.partial_eval:2032: TRACING CACHE MISS at /w/t.py:21:11 (test_a):\n  never seen function:\n    step id=%d defined at /w/t.py:14", pid)
			} else {
				line("jax._src.interpreters.partial_eval:2032: TRACING CACHE MISS at /w/t.py:30:11 (test_b):\n  for step defined at /w/t.py:14\nall previously seen cache keys differ. For the closest previous key:\ndifferent input types:\n* at x, now f32[%s] and before f32[8]", shape)
			}
		}
		for _, pid := range []int{11, 22} {
			d := time.Duration(1_000_000*(round+1) + pid)
			line("jax._src.dispatch:236: Finished tracing step for jit in %.9f sec", d.Seconds())
			stages = append(stages, StageRecord{Stage: "trace", Duration: d, PID: pid, Name: "step"})
		}
		log.inStep = round == 0 // the first round's requests and ends alike, to the millisecond and the nanosecond
		for range 2 {
			line("jax._src.interpreters.pxla:732: Compiling jit(step) with global shapes and types (ShapedArray(float32[%s]),). Argument mapping: (UnspecifiedValue,).", shape)
		}
		log.inStep = false
		for _, pid := range []int{22, 11} {
			d := time.Duration(2_000_000*(round+1) + pid)
			line("jax._src.dispatch:236: Finished jaxpr to MLIR module conversion jit(step) in %.9f sec", d.Seconds())
			stages = append(stages, StageRecord{Stage: "lower", Duration: d, PID: pid})
		}
		for range 2 {
			log.ms++
			fmt.Fprintf(&log, "DEBUG:2026-12-03 10:24:45,%03d:jax._src.cache_key:149: get_cache_key hash of serialized computation: 1fa38ad3f8fd335bf892a4a3211f6fb12b875a4810f51393d5d0150c8b277c71\n", log.ms)
			line("jax._src.compiler:183: PERSISTENT COMPILATION CACHE MISS for 'jit_step' with key 'jit_step-d9be25b331a3a3865b3339f1454c883e8ee3d9eb4a7bf5b900669881164f0c2e'")
		}
		for range 2 {
			line("jax._src.compiler:853: Not writing persistent cache entry for 'jit_step' because it took < 1.00 seconds to compile (0.03s)")
		}
		log.inStep = round == 0
		for _, pid := range []int{11, 22} {
			d := time.Duration(3_000_000*(round+1) + pid)
			if log.inStep {
				d = 3_000_000
			}
			line("jax._src.dispatch:236: Finished XLA compilation of jit(step) in %.9f sec", d.Seconds())
			stages = append(stages, StageRecord{Stage: "compile", Duration: d, PID: pid})
		}
		log.inStep = false
	}
	stages = append(stages, StageRecord{Stage: WorkerStage, PID: 11, Name: "gw0"}) // the pytest plugin's name of one
	s, err := ReadLogs([]Log{{Path: "run.log", Reader: strings.NewReader(log.String())}}, ReadOptions{Stages: stages})
	if err != nil {
		t.Fatal(err)
	}
	sm := s.Ledger.Summary
	if sm.CompileRequests != 4 || sm.Compilations != 4 || sm.Recompilations != 2 || sm.CacheMisses != 4 || sm.Retraces != 2 {
		t.Errorf("summary: %d requests, %d compilations, %d recompilations, %d cache misses, %d retraces; want 4, 4, 2, 4, 2",
			sm.CompileRequests, sm.Compilations, sm.Recompilations, sm.CacheMisses, sm.Retraces)
	}
	var procs []string
	for _, p := range s.Ledger.Procs {
		procs = append(procs, fmt.Sprintf("%s: %d", p.Name, p.Compilations))
	}
	if got := strings.Join(procs, "; "); got != "run.log [gw0, pid 11]: 2; run.log [pid 22]: 2" {
		t.Errorf("processes %s", got)
	}
}

// Two processes trace one function at the same moment and print their requests in the other
// order: the probe's record of each trace holds its arguments' shapes, and each request goes
// with the trace whose shapes its signature holds, not with the first traced.
func TestRoutedRequestsByShape(t *testing.T) {
	var log jaxLines
	var stages []StageRecord
	line := log.line
	shape := map[int]string{11: "8", 22: "16"}
	for _, pid := range []int{11, 22} {
		d := time.Duration(1_000_000 + pid)
		line("jax._src.dispatch:236: Finished tracing step for jit in %.9f sec", d.Seconds())
		stages = append(stages, StageRecord{Stage: "trace", Duration: d, PID: pid, Name: "step", Shapes: []string{"float32[4,4]", "float32[" + shape[pid] + ",4]"}})
	}
	for _, pid := range []int{22, 11} { // the requests the other way round
		line("jax._src.interpreters.pxla:732: Compiling jit(step) with global shapes and types (ShapedArray(float32[4,4]), ShapedArray(float32[%s,4]), ShapedArray(float32[], weak_type=True)). Argument mapping: (UnspecifiedValue,).", shape[pid])
	}
	for _, pid := range []int{22, 11} {
		d := time.Duration(3_000_000 + pid)
		line("jax._src.dispatch:236: Finished XLA compilation of jit(step) in %.9f sec", d.Seconds())
		stages = append(stages, StageRecord{Stage: "compile", Duration: d, PID: pid})
	}
	s, err := ReadLogs([]Log{{Path: "run.log", Reader: strings.NewReader(log.String())}}, ReadOptions{Stages: stages})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range s.Ledger.Modules {
		for _, u := range m.Compiled() {
			n++
			if want := "float32[" + shape[u.PID] + ",4]"; !strings.Contains(u.Signature, want) {
				t.Errorf("pid %d: signature %s, want %s", u.PID, u.Signature, want)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d compilations, want 2", n)
	}
}

// Live, pytest -n's two workers start compiling together, and the log shows their first stages
// before the probe has written its records of them: the first stage waits for its record, so
// that each worker's first compilation is its own, not the other's compiled again.
func TestLiveFirstStageWaits(t *testing.T) {
	var log jaxLines
	var stages []StageRecord
	line := log.line
	for _, pid := range []int{11, 22} {
		d := time.Duration(1_000_000 + pid)
		line("jax._src.dispatch:236: Finished tracing init for jit in %.9f sec", d.Seconds())
		stages = append(stages, StageRecord{Stage: "trace", Duration: d, PID: pid, Name: "init"})
	}
	for _, pid := range []int{11, 22} {
		line("jax._src.interpreters.pxla:732: Compiling jit(init) with global shapes and types (). Argument mapping: ().")
		d := time.Duration(2_000_000 + pid)
		line("jax._src.dispatch:236: Finished jaxpr to MLIR module conversion jit(init) in %.9f sec", d.Seconds())
		stages = append(stages, StageRecord{Stage: "lower", Duration: d, PID: pid})
	}
	for _, pid := range []int{11, 22} {
		d := time.Duration(3_000_000 + pid)
		line("jax._src.dispatch:236: Finished XLA compilation of jit(init) in %.9f sec", d.Seconds())
		stages = append(stages, StageRecord{Stage: "compile", Duration: d, PID: pid})
	}
	start := time.Now()
	given := false
	next := func() []StageRecord { // the probe's records, written 200 ms after the log's lines
		if given || time.Since(start) < 200*time.Millisecond {
			return nil
		}
		given = true
		return stages
	}
	lv := NewLive(LiveOptions{Name: "run.log", Stages: next})
	lv.Write([]byte(log.String()))
	rep := lv.Close()
	for _, u := range lv.Compiled() {
		if u.AfterWarmup {
			t.Errorf("live: %s at line %d compiled after warm-up", u.Module, u.Line)
		}
	}
	if sm := rep.Summary; sm.Compilations != 2 || sm.Recompilations != 0 || len(rep.Procs) != 2 {
		t.Errorf("live: %d compilations, %d recompilations, %d processes; want 2, 0, 2", sm.Compilations, sm.Recompilations, len(rep.Procs))
	}
}

// The probe writing a pytest --recomp session's run.log itself tags each line with its process
// ([pid N]): with the probe's records of several processes (here the workers' names), each
// tag is a process of its own, named by its worker, whatever stack wrote the lines (with no
// stage record to route them by), and two processes' alike lines are two records. One
// process's tags are dropped.
func TestProcessTags(t *testing.T) {
	lines := func(pids ...int) string {
		var b strings.Builder // the processes' lines alike and next to each other
		for i, pid := range pids {
			fmt.Fprintf(&b, "2026-12-03T11:06:13.%06dZ [pid %d] WARNING:2026-12-03 10:24:45,001:jax._src.interpreters.pxla:732: Compiling jit(step) with global shapes and types (ShapedArray(float32[8,4]),). Argument mapping: (UnspecifiedValue,).\n", i, pid)
		}
		for i, pid := range pids {
			fmt.Fprintf(&b, "2026-12-03T11:06:13.%06dZ [pid %d] WARNING:2026-12-03 10:24:45,002:jax._src.dispatch:236: Finished XLA compilation of jit(step) in 0.100000000 sec\n", i, pid)
		}
		return b.String()
	}
	read := func(log string, stages []StageRecord) *Report {
		s, err := ReadLogs([]Log{{Path: "run.log", Reader: strings.NewReader(log)}}, ReadOptions{Stages: stages})
		if err != nil {
			t.Fatal(err)
		}
		return s.Ledger
	}
	names := []StageRecord{{Stage: WorkerStage, PID: 11, Name: "gw0"}, {Stage: WorkerStage, PID: 22, Name: "gw1"}}
	rep := read(lines(11, 22), names)
	var procs []string
	for _, p := range rep.Procs {
		procs = append(procs, fmt.Sprintf("%s: %d", p.Name, p.Compilations))
	}
	if got := strings.Join(procs, "; "); got != "run.log [gw0, pid 11]: 1; run.log [gw1, pid 22]: 1" || rep.Summary.Recompilations != 0 {
		t.Errorf("processes %s, %d recompilations", got, rep.Summary.Recompilations)
	}
	// one process's tags: the log's own process, each of its records printed twice read once
	if rep := read(lines(11, 11), nil); len(rep.Procs) != 1 || rep.Procs[0].Name != "run.log" || rep.Summary.Recompilations != 0 || rep.Summary.Compilations != 1 {
		t.Errorf("one process: %+v, %d compilations, %d recompilations", rep.Procs, rep.Summary.Compilations, rep.Summary.Recompilations)
	}
}
