package explain

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/runfolder"
)

// levelOneLog is a PyTorch/XLA log at PT_XLA_DEBUG_LEVEL=1 (as recomp run sets it) of n
// compilations at one line of the program: no executions, no step counts, no times.
func levelOneLog(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `Compilation Analysis: ================================================================================
Compilation Analysis: Compilation Cause
Compilation Analysis:   user torch_xla.sync
Compilation Analysis: Graph Info: 
Compilation Analysis:   Graph Hash: %032x
Compilation Analysis:   Number of Graph Inputs: 11
Compilation Analysis:   Number of Graph Outputs: 25
Compilation Analysis: Python Frame Triggered Execution: 
Compilation Analysis:   sync (/venv/lib/python3.11/site-packages/torch_xla/torch_xla.py:87)
Compilation Analysis:   wrapped (/home/u/recomp-runs/20261127-051807-train/.recomp-probe/sitecustomize.py:227)
Compilation Analysis:   <module> (/home/u/train.py:21)
Compilation Analysis: --------------------------------------------------------------------------------
Compilation Analysis: ================================================================================

Computation hash: %032x

epoch %d: loss 0.5
`, 0xabc0+i, 0xdef0+i, i)
	}
	return b.String()
}

// recomp run's torch_xla probe counts the steps: each compilation of the log takes the step of
// the first sync record that counts it, the process the steps and epochs, and the compilations
// their CompileTime samples; records of several processes, or that count other compilations
// than the log's, give nothing.
func TestAttachSteps(t *testing.T) {
	var hook frameworks.ProbeHook
	for _, p := range frameworks.Probes() {
		if p.Attach == framework.AttachSteps {
			hook = p
		}
	}
	if hook.Probe == nil || hook.Name != "torch-xla" {
		t.Fatalf("no unit joins by steps: %+v", hook)
	}
	rec := func(event string, step, compiles int) runfolder.ProbeRecord {
		return runfolder.ProbeRecord{Framework: "torch-xla", Event: event, Step: step, Compiles: compiles, PID: 9}
	}
	epoch := func(loader string, step int) runfolder.ProbeRecord {
		return runfolder.ProbeRecord{Framework: "torch-xla", Event: "epoch", Loader: loader, Step: step, PID: 9}
	}
	end := rec("steps", 12, 3)
	end.CompileNS = []int64{1.5e9, 1.25e9, 1e9}
	good := []runfolder.ProbeRecord{epoch("a", 0), rec("sync", 1, 1), epoch("eval", 1), epoch("a", 4), rec("sync", 5, 2),
		epoch("a", 8), rec("sync", 9, 3), end}
	read := func(recs []runfolder.ProbeRecord) *ledger.Report {
		s, err := ledger.ReadLogs([]ledger.Log{{Path: "run.log", Reader: strings.NewReader(levelOneLog(3))}}, ledger.ReadOptions{SameProcess: true})
		if err != nil {
			t.Fatal(err)
		}
		attachProbe(s.Ledger, recs, ledger.Options{})
		return s.Ledger
	}
	rep := read(good)
	var steps []int
	var secs time.Duration
	for _, m := range rep.Modules {
		for _, u := range m.Compiled() {
			steps = append(steps, u.Step)
			secs += u.Duration
			if u.Site.String() != "train.py:21 (<module>)" {
				t.Errorf("site %q: the probe's frame is not the program's", u.Site.String())
			}
		}
	}
	if !slices.Equal(steps, []int{1, 5, 9}) || rep.Procs[0].Steps != 12 || !slices.Equal(rep.Procs[0].Epochs, []int{0, 4, 8}) {
		t.Errorf("steps %v of %d, epochs %v; want 1, 5, 9 of 12, epochs 0, 4, 8", steps, rep.Procs[0].Steps, rep.Procs[0].Epochs)
	}
	if secs != 3750*time.Millisecond || rep.Summary.CompileTime != secs || rep.Summary.LateCompileTime != 2250*time.Millisecond {
		t.Errorf("compile time %v (summary %v, late %v), want 3.75s, 2.25s late", secs, rep.Summary.CompileTime, rep.Summary.LateCompileTime)
	}

	// a compilation after the last step is after it
	late := slices.Clone(good[:5])
	late = append(late, rec("steps", 8, 3))
	rep = read(late)
	steps = steps[:0]
	for _, m := range rep.Modules {
		for _, u := range m.Compiled() {
			steps = append(steps, u.Step)
		}
	}
	if !slices.Equal(steps, []int{1, 5, 9}) || rep.Procs[0].Steps != 8 || !slices.Equal(rep.Procs[0].Epochs, []int{0, 4}) {
		t.Errorf("after the last step: steps %v of %d, epochs %v; want 1, 5, 9 of 8, epochs 0, 4", steps, rep.Procs[0].Steps, rep.Procs[0].Epochs)
	}

	other := slices.Clone(good)
	other[4].PID = 10
	counted := slices.Clone(good)
	counted[len(counted)-1].Compiles = 4
	for name, recs := range map[string][]runfolder.ProbeRecord{"two processes": other, "other compilations": counted,
		"no end": good[:len(good)-1]} {
		rep := read(recs)
		if rep.Procs[0].Steps != 0 || rep.Summary.CompileTime != 0 {
			t.Errorf("%s: steps %d, compile time %v; want none", name, rep.Procs[0].Steps, rep.Summary.CompileTime)
		}
	}
}

// Whatever a probe.jsonl holds, steps join the compilations in order, within the steps counted,
// and durations and epochs are never negative or out of order.
func FuzzAttachSteps(f *testing.F) {
	f.Add(`{"framework":"torch-xla","event":"epoch","loader":"a","step":0,"pid":9}
{"framework":"torch-xla","event":"sync","step":1,"compiles":1,"pid":9}
{"framework":"torch-xla","event":"sync","step":5,"compiles":2,"pid":9}
{"framework":"torch-xla","event":"epoch","loader":"a","step":4,"pid":9}
{"framework":"torch-xla","event":"steps","step":12,"compiles":3,"compile_ns":[1,2,3],"pid":9}`)
	f.Add(`{"framework":"torch-xla","event":"steps","step":-3,"compiles":3,"compile_ns":[-1,2,3],"pid":9}`)
	f.Add(`{"framework":"torch-xla","event":"epoch","loader":"a","step":0,"pid":9}
{"framework":"torch-xla","event":"epoch","loader":"v","step":2,"pid":9}
{"framework":"torch-xla","event":"sync","step":1,"compiles":1,"pid":9}
{"framework":"torch-xla","event":"epoch","loader":"v","step":3,"pid":9}
{"framework":"torch-xla","event":"epoch","loader":"a","step":3,"pid":9}
{"framework":"torch-xla","event":"steps","step":6,"compiles":3,"loaders":{"a":6,"v":-2},"compile_ns":[1,2,3],"pid":9}`)
	f.Add(`{"framework":"torch-xla","event":"sync","step":9,"compiles":3,"pid":9}
{"framework":"torch-xla","event":"steps","step":2,"compiles":3,"pid":9}`)
	log := levelOneLog(3)
	f.Fuzz(func(t *testing.T, lines string) {
		var recs []runfolder.ProbeRecord
		for _, l := range strings.Split(lines, "\n") {
			var r runfolder.ProbeRecord
			if json.Unmarshal([]byte(l), &r) == nil && r.Event != "" {
				recs = append(recs, r)
			}
		}
		s, err := ledger.ReadLogs([]ledger.Log{{Path: "run.log", Reader: strings.NewReader(log)}}, ledger.ReadOptions{SameProcess: true})
		if err != nil {
			t.Fatal(err)
		}
		rep := s.Ledger
		attachProbe(rep, recs, ledger.Options{})
		p := rep.Procs[0]
		last := 0
		for _, m := range rep.Modules {
			for _, u := range m.Compiled() {
				if u.Duration < 0 {
					t.Fatalf("duration %v", u.Duration)
				}
				if p.Steps == 0 {
					continue
				}
				if u.Step < max(last, 1) || u.Step > p.Steps+1 {
					t.Fatalf("step %d after %d, of %d", u.Step, last, p.Steps)
				}
				last = u.Step
			}
		}
		for i, e := range p.Epochs {
			if e < 0 || e > p.Steps || i > 0 && e <= p.Epochs[i-1] {
				t.Fatalf("epochs %v of %d steps", p.Epochs, p.Steps)
			}
		}
	})
}

// The epochs are the training loop's loader's: the one whose batches the steps ended with, not an
// evaluation loader iterated as often or more (every half epoch, or before training); without the
// probe's counts, the loader iterated most often, each time after a step more.
func TestEpochsOfTrainingLoader(t *testing.T) {
	epoch := func(loader string, step int) runfolder.ProbeRecord {
		return runfolder.ProbeRecord{Framework: "torch-xla", Event: "epoch", Loader: loader, Step: step, PID: 9}
	}
	// 3 epochs of 3 steps; evaluation after the second batch and at each epoch's end
	halves := []runfolder.ProbeRecord{epoch("train", 0), epoch("val", 2), epoch("val", 3), epoch("train", 3),
		epoch("val", 5), epoch("val", 6), epoch("train", 6), epoch("val", 8), epoch("val", 9)}
	// evaluation before training, then at each epoch's end: as often as training, first
	before := []runfolder.ProbeRecord{epoch("val", 0), epoch("train", 0), epoch("val", 3), epoch("train", 3),
		epoch("val", 6), epoch("train", 6), epoch("val", 9)}
	for name, c := range map[string]struct {
		recs  []runfolder.ProbeRecord
		steps map[string]int
		want  []int
	}{
		"every half epoch":        {halves, map[string]int{"train": 9}, []int{0, 3, 6}},
		"before training":         {before, map[string]int{"train": 9}, []int{0, 3, 6}},
		"evaluation syncs too":    {halves, map[string]int{"train": 9, "val": 6}, []int{0, 3, 6}},
		"an older probe":          {halves, nil, []int{2, 3, 5, 6, 8, 9}},
		"steps under no epoch":    {halves, map[string]int{"other": 9}, nil},
		"most iterated, no steps": {append([]runfolder.ProbeRecord{epoch("x", 0), epoch("x", 0), epoch("x", 0), epoch("x", 0)}, halves[:4]...), nil, []int{0, 3}},
	} {
		if got := epochsOf(c.recs, c.steps); !slices.Equal(got, c.want) {
			t.Errorf("%s: epochs %v, want %v", name, got, c.want)
		}
	}
}
