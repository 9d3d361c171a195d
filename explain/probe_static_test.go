package explain

import (
	"testing"

	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/logscan"
	"github.com/recomp/recomp/runfolder"
)

// Each JAX compilation takes the static arguments of the trace it compiles: the trace of the
// function it names (JAX 0.12), else the longest since the last compile (JAX 0.4 names none, and
// reports the traces its lowering makes after the function's); a compile with no trace of its
// own takes none.
func TestAttachJAXStatic(t *testing.T) {
	trace := func(name string, secs float64, static ...string) runfolder.ProbeRecord {
		r := runfolder.ProbeRecord{Framework: "jax", Event: "trace", Name: name, Seconds: secs, PID: 7}
		for i := 0; i+1 < len(static); i += 2 {
			r.Static = append(r.Static, runfolder.StaticArg{Name: static[i], Value: static[i+1]})
		}
		return r
	}
	compile := func(name string) runfolder.ProbeRecord {
		return runfolder.ProbeRecord{Framework: "jax", Event: "compile", Name: name, PID: 7}
	}
	for _, tc := range []struct {
		name string
		recs []runfolder.ProbeRecord
	}{
		{"jax 0.12", []runfolder.ProbeRecord{
			trace("step", 0.3, "dropout", "0.1"), compile("jit(step)"),
			trace("norm", 0.1), trace("step", 0.2, "dropout", "0.05"), compile("jit(step)"),
			trace("norm", 0.1), compile("jit(norm)")}},
		{"jax 0.4", []runfolder.ProbeRecord{
			trace("add", 0.01), trace("step", 0.3, "dropout", "0.1"), trace("less", 0.001), compile(""),
			trace("step", 0.2, "dropout", "0.05"), trace("add", 0.001), compile(""),
			trace("norm", 0.1), compile("")}},
	} {
		var units []*ledger.Unit
		for _, m := range []string{"jit_step", "jit_step", "jit_norm"} {
			units = append(units, &ledger.Unit{Module: m, Requested: true, Producer: logscan.ProducerJAX})
		}
		attach(units, tc.recs, framework.AttachInOrder)
		got := [3]string{}
		for i, u := range units {
			for _, a := range u.Static {
				got[i] += a.Name + "=" + a.Value
			}
		}
		if got != [3]string{"dropout=0.1", "dropout=0.05", ""} {
			t.Errorf("%s: %q", tc.name, got)
		}
	}
}
