package explain

import (
	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/runfolder"
)

// LiveSites gives compilations the program's own line that the probe recorded, where their log
// named none: TF's traces of a tf.function, the Keras fit, evaluate or predict they ran under —
// what recomp run's live lines say while the run goes on, joined as the report at the end joins
// them (by function name and time). Records joined in order (JAX's) wait for the report: the
// live units are not all the run's.
func LiveSites(units []*ledger.Unit, recs []runfolder.ProbeRecord) {
	attach(units, recs, framework.AttachLastTrace, framework.AttachCallSpan)
}
