package explain

import (
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/runfolder"
)

// LiveStages follows the probe's records of the run folder dir while the run goes on: next
// gives the stages written since its last call (ledger.LiveOptions.Stages); stop ends it.
func LiveStages(dir string) (next func() []ledger.StageRecord, stop func()) {
	t := runfolder.NewProbeTail(dir)
	return func() []ledger.StageRecord { return stagesOf(t.Next()) }, func() { t.Close() }
}

// stagesOf keeps the probe's compile stages (JAX's: framework.Probe.Stages) that name their
// process and duration, the names the pytest plugin gave its workers' processes (stage
// "worker", Name the worker's id: gw0), and, once for each process, that a process ran a stack
// (ledger.ProcessStage: any stack's record, a TF function's trace).
func stagesOf(recs []runfolder.ProbeRecord) []ledger.StageRecord {
	var out []ledger.StageRecord
	var ran map[int]bool
	for _, r := range recs {
		switch {
		case r.PID != 0 && r.Seconds > 0 && frameworks.ProbeStages(r.Framework):
			out = append(out, ledger.StageRecord{Stage: r.Event, PID: r.PID, Duration: time.Duration(r.Seconds*1e9 + 0.5), Name: r.Name, Shapes: r.Shapes})
		case r.PID != 0 && r.Framework == "pytest" && r.Event == ledger.WorkerStage && r.Name != "":
			out = append(out, ledger.StageRecord{Stage: ledger.WorkerStage, PID: r.PID, Name: r.Name})
		}
		if r.PID != 0 && frameworks.HasProbe(r.Framework) && !ran[r.PID] && len(ran) < maxRan {
			if ran == nil {
				ran = map[int]bool{}
			}
			ran[r.PID] = true
			out = append(out, ledger.StageRecord{Stage: ledger.ProcessStage, PID: r.PID})
		}
	}
	return out
}

// maxRan bounds the processes stagesOf says ran a stack.
const maxRan = 4096
