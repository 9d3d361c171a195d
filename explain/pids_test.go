package explain

import (
	"fmt"
	"strings"
	"testing"

	"github.com/recomp/recomp/ledger"
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
