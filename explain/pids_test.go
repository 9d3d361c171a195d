package explain

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/logscan"
	"github.com/recomp/recomp/runfolder"
)

// Each process that ran a stack is said once (ledger.ProcessStage), whichever stack's records
// say it; the interpreter's versions and the pytest plugin's records name no stack.
func TestStagesOfProcesses(t *testing.T) {
	recs := []runfolder.ProbeRecord{
		{Framework: "tf", Event: "trace", PID: 7, Name: "predict"},
		{Framework: "tf", Event: "trace", PID: 7, Name: "predict"},
		{Framework: "jax", Event: "compile", PID: 8, Seconds: 0.5, Name: "jit_step"},
		{Framework: "python", Event: "versions", PID: 9},
		{Framework: "pytest", Event: ledger.WorkerStage, PID: 9, Name: "gw0"},
		{Framework: "tf", Event: "trace", PID: 0},
	}
	var got []string
	for _, s := range stagesOf(recs) {
		got = append(got, fmt.Sprintf("%s %d", s.Stage, s.PID))
	}
	if want := "process 7; compile 8; process 8; worker 9"; strings.Join(got, "; ") != want {
		t.Errorf("stages %s, want %s", strings.Join(got, "; "), want)
	}
}

// Two workers trace one tf.function at once and each compiles it once; their compile lines name
// no process. Each compilation gets one worker's test line, not both the last trace's; in one
// process, a compilation again of a function traced once keeps that trace's line.
func TestLastTraceByProcesses(t *testing.T) {
	var tf frameworks.ProbeHook
	for _, p := range frameworks.Probes() {
		if p.Name == "tf" {
			tf = p
		}
	}
	at := func(s float64) time.Time {
		return time.Unix(1796311097, 0).Add(time.Duration(s * float64(time.Second))).UTC()
	}
	trace := func(pid int, s float64, test string, line int) runfolder.ProbeRecord {
		return runfolder.ProbeRecord{Framework: "tf", Event: tf.Event, Name: "predict", PID: pid, T: float64(at(s).UnixNano()) / 1e9,
			File: "/w/test_two.py", Line: line, Function: test}
	}
	unit := func(s float64) *ledger.Unit {
		return &ledger.Unit{Compiled: true, DateKnown: true, Begin: at(s), Module: "__inference_predict_10", Producer: logscan.ProducerTF}
	}
	for _, c := range []struct {
		name   string
		traces []runfolder.ProbeRecord
		want   string
	}{
		{"two workers", []runfolder.ProbeRecord{trace(7, 0.1, "test_a", 12), trace(8, 0.2, "test_b", 17)}, "test_b test_a"},
		{"one process", []runfolder.ProbeRecord{trace(7, 0.1, "test_a", 12), trace(7, 0.2, "test_b", 17)}, "test_b test_b"},
	} {
		units := []*ledger.Unit{unit(0.5), unit(0.6)}
		attachLastTrace(units, c.traces, tf)
		var got []string
		for _, u := range units {
			got = append(got, u.Site.Function)
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s: sites %q, want %s", c.name, got, c.want)
		}
	}
}
