package ledger

import (
	"fmt"
	"strings"
	"testing"

	"github.com/recomp/recomp/logscan"
)

// tfCounted is the compile log two pytest -n workers wrote, untagged, into one run.log (a real
// run's lines, TF 2.21): each compiles predict and relaxed for a batch of 8, and worker 22310
// compiles them again for 9 and 10 (predict retraced each time; relaxed, with
// reduce_retracing, once, its relaxed function compiled again). TF's profiler counts each
// process's compilations of a function from 1.
const tfCounted = `I0000 00:00:1796311335.588821   22310 device_compiler.h:208] Compiled cluster using XLA!  This line is logged at most once for the lifetime of the process.
I0000 00:00:1796311335.588832   22314 device_compiler.h:208] Compiled cluster using XLA!  This line is logged at most once for the lifetime of the process.
I0000 00:00:1796311335.588907   22310 device_compilation_profiler.cc:113] Compiled __inference_predict_10 1 times, compile time: 106006 us, cumulative: 106006 us (0 us / 106 ms)
I0000 00:00:1796311335.589059   22314 device_compilation_profiler.cc:113] Compiled __inference_predict_10 1 times, compile time: 106054 us, cumulative: 106054 us (0 us / 106 ms)
I0000 00:00:1796311335.711901   22310 device_compilation_profiler.cc:113] Compiled __inference_relaxed_21 1 times, compile time: 70841 us, cumulative: 70841 us (0 us / 70.8 ms)
I0000 00:00:1796311335.730367   22314 device_compilation_profiler.cc:113] Compiled __inference_relaxed_21 1 times, compile time: 87860 us, cumulative: 87860 us (0 us / 87.9 ms)
I0000 00:00:1796311335.836619   22310 device_compilation_profiler.cc:113] Compiled __inference_predict_32 1 times, compile time: 113036 us, cumulative: 113036 us (0 us / 113 ms)
I0000 00:00:1796311335.930995   22310 device_compilation_profiler.cc:113] Compiled __inference_relaxed_43 1 times, compile time: 81422 us, cumulative: 81422 us (0 us / 81.4 ms)
I0000 00:00:1796311336.031225   22310 device_compilation_profiler.cc:113] Compiled __inference_predict_54 1 times, compile time: 89393 us, cumulative: 89393 us (0 us / 89.4 ms)
I0000 00:00:1796311336.094968   22310 device_compilation_profiler.cc:113] Compiled __inference_relaxed_43 2 times, compile time: 59998 us, cumulative: 141420 us (0 us / 141 ms)
`

// Processes whose compile lines count their own compilations, untagged in one log: read apart
// by their counts once the probe's records show several processes ran the stack, so that a
// worker's first compilation of a function is no recompilation of another's, while a worker's
// own compilations again stay counted; the live ledger says the same line by line. A log of
// one process (no records of several) is read as one, as before.
func TestCountedProcesses(t *testing.T) {
	two := []StageRecord{{Stage: ProcessStage, PID: 22310}, {Stage: ProcessStage, PID: 22314}, {Stage: "trace", PID: 22310, Name: "predict"}}
	for _, c := range []struct {
		name     string
		stages   []StageRecord
		recompil int
		families string
	}{
		{"two processes", two, 4, "__inference_predict_N 4/2; __inference_relaxed_N 4/2"},
		{"one process", two[:1], 6, "__inference_predict_N 4/3; __inference_relaxed_N 4/3"},
	} {
		s, err := ReadLogs([]Log{{Path: "run.log", Reader: strings.NewReader(tfCounted)}}, ReadOptions{Stages: c.stages})
		if err != nil {
			t.Fatal(err)
		}
		sm := s.Ledger.Summary
		if sm.Compilations != 8 || sm.Recompilations != c.recompil {
			t.Errorf("%s: %d compilations, %d recompilations; want 8, %d", c.name, sm.Compilations, sm.Recompilations, c.recompil)
		}
		var fams []string
		for _, m := range s.Ledger.Modules {
			fams = append(fams, fmt.Sprintf("%s %d/%d", m.Family, m.Compilations, m.Recompilations))
		}
		if got := strings.Join(fams, "; "); got != c.families {
			t.Errorf("%s: families %s, want %s", c.name, got, c.families)
		}
		// The processes of one log are named as such where a finding counts them.
		for _, f := range s.Ledger.Findings {
			if f.Kind == FindingRecompiledNewHash || f.Kind == FindingRecompiledSameHash || f.Kind == FindingRecompiled {
				if c.name == "two processes" && !strings.Contains(f.Message, " of 2 processes)") || strings.Contains(f.Message, "inputs)") {
					t.Errorf("%s: %s", c.name, f.Message)
				}
			}
		}

		given := false
		lv := NewLive(LiveOptions{Name: "run.log", Stages: func() []StageRecord {
			if given {
				return nil
			}
			given = true
			return c.stages
		}})
		for _, line := range strings.SplitAfter(tfCounted, "\n") {
			lv.Write([]byte(line))
		}
		live := lv.Close()
		if live.Summary.Compilations != sm.Compilations || live.Summary.Recompilations != sm.Recompilations || live.Processes != s.Ledger.Processes {
			t.Errorf("%s: live %d compilations, %d recompilations, %d processes; read %d, %d, %d", c.name,
				live.Summary.Compilations, live.Summary.Recompilations, live.Processes, sm.Compilations, sm.Recompilations, s.Ledger.Processes)
		}
	}
}

// A count goes with the process whose last count of its function it continues; a count whose
// predecessor the log did not show goes with the first process behind it.
func TestCountRouter(t *testing.T) {
	var c countRouter
	var got []string
	for _, n := range []int{1, 1, 2, 3, 2, 1, 4, 7} {
		p := c.process(logscan.Event{Kind: logscan.CompileFinished, Module: "f", Count: n})
		if p == "" {
			p = "1"
		}
		got = append(got, strings.TrimPrefix(p, "process "))
	}
	if want := "1 2 1 1 2 3 1 1"; strings.Join(got, " ") != want {
		t.Errorf("processes %s, want %s", strings.Join(got, " "), want)
	}
}

// The probe's record of the second process may come after that process's first line: the live
// ledger waits for it a moment at a second first compilation of a function, and counts from the
// first line either way, so that it says what the end says.
func TestCountedProcessesLateRecord(t *testing.T) {
	calls := 0
	lv := NewLive(LiveOptions{Name: "run.log", Stages: func() []StageRecord {
		calls++
		switch calls {
		case 1:
			return []StageRecord{{Stage: ProcessStage, PID: 22310}}
		case 3:
			return []StageRecord{{Stage: ProcessStage, PID: 22314}}
		}
		return nil
	}})
	for _, line := range strings.SplitAfter(tfCounted, "\n") {
		lv.Write([]byte(line))
	}
	live := lv.Close()
	if live.Summary.Compilations != 8 || live.Summary.Recompilations != 4 || live.Processes != 2 {
		t.Errorf("live: %d compilations, %d recompilations, %d processes; want 8, 4, 2 (after %d calls)",
			live.Summary.Compilations, live.Summary.Recompilations, live.Processes, calls)
	}
}
