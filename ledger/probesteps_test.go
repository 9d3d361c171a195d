package ledger

import (
	"slices"
	"testing"
	"time"
)

// The probe's steps go where the log counts none; where it counts its own (PT_XLA_DEBUG_LEVEL=2)
// they stay, and the probe's epochs are taken only when both count as many steps. Durations go
// only where the log gave no compile time.
func TestProbeSteps(t *testing.T) {
	mk := func(logSteps int, logTime time.Duration) (*Report, []*Unit) {
		us := []*Unit{{Compiled: true, Step: 1}, {Compiled: true, Step: 2}}
		r := &Report{Modules: []*Module{{Units: us}}, Procs: []Process{{Steps: logSteps}}, Summary: Summary{Compilations: 2, CompileTime: logTime}}
		return r, us
	}
	epochs := []int{0, 4}
	r, us := mk(0, 0)
	r.ProbeSteps(us, []int{1, 5}, 8, epochs, []time.Duration{time.Second, 2 * time.Second})
	if us[1].Step != 5 || r.Procs[0].Steps != 8 || !slices.Equal(r.Procs[0].Epochs, epochs) || r.Summary.CompileTime != 3*time.Second ||
		r.Modules[0].CompileTime != 3*time.Second || us[1].Duration != 2*time.Second {
		t.Errorf("level 1: %+v %+v %+v", r.Procs[0], r.Summary, us[1])
	}
	r, us = mk(8, time.Second)
	r.ProbeSteps(us, []int{1, 5}, 8, epochs, []time.Duration{time.Second, 2 * time.Second})
	if us[1].Step != 2 || !slices.Equal(r.Procs[0].Epochs, epochs) || r.Summary.CompileTime != time.Second || us[1].Duration != 0 {
		t.Errorf("level 2, as many steps: %+v %+v %+v", r.Procs[0], r.Summary, us[1])
	}
	r, us = mk(9, 0)
	r.ProbeSteps(us, []int{1, 5}, 8, epochs, nil)
	if us[1].Step != 2 || r.Procs[0].Epochs != nil || r.Procs[0].Steps != 9 {
		t.Errorf("level 2, another count: %+v %+v", r.Procs[0], us[1])
	}
}
