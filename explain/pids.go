package explain

import (
	"time"

	jaxfw "github.com/recomp/recomp/frameworks/jax"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/runfolder"
)

// probeStages are the compile stages the probe of a run folder saw JAX report, with each
// process's id and the stage's duration (to the nanosecond, as JAX prints it): for the ledger
// to tell apart the workers a command started, which wrote one run.log (ledger.StageRecord).
func probeStages(dir string) []ledger.StageRecord {
	recs, err := runfolder.ReadProbe(dir)
	if err != nil {
		return nil
	}
	var out []ledger.StageRecord
	for _, r := range recs {
		if r.Framework == jaxfw.Name && r.PID != 0 && r.Seconds > 0 {
			out = append(out, ledger.StageRecord{Stage: r.Event, PID: r.PID, Duration: time.Duration(r.Seconds*1e9 + 0.5)})
		}
	}
	return out
}
