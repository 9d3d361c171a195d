package ledger

import (
	"fmt"
	"strings"
	"testing"
)

// retraceLine is TF's retracing warning about a function of its own name.
func retraceLine(i int) string {
	return fmt.Sprintf("WARNING:tensorflow:5 out of the last 5 calls to <function step_%d at 0x7f%08x> triggered tf.function retracing. "+
		"Tracing is expensive and the excessive number of tracings could be due to (1) creating @tf.function repeatedly in a loop.\n", i, i)
}

// Retracing warnings about more functions than a report lists one by one (a tf.function made
// anew in a loop): every warning is counted, the first maxRetraceNotes functions are listed,
// and one finding says how many warnings were not.
func TestRetraceNamesAreCapped(t *testing.T) {
	const names = maxRetraceNotes + 500
	var b strings.Builder
	for i := range names {
		b.WriteString(retraceLine(i))
	}
	b.WriteString(retraceLine(0)) // a function listed already: listed, not counted apart
	rep := report(t, Options{}, b.String())
	listed, said := 0, ""
	for _, f := range rep.Findings {
		if f.Kind == FindingFrequentRetracing {
			listed++
			said = f.Message
		}
	}
	if rep.Summary.Retraces != names+1 || rep.Summary.RetracesNotListed != 500 || listed != maxRetraceNotes+1 ||
		said != fmt.Sprintf("500 warning(s) about functions beyond the first %d warned about are counted, not listed", maxRetraceNotes) {
		t.Errorf("%d retraces, %d not listed, %d findings, the last %q", rep.Summary.Retraces, rep.Summary.RetracesNotListed, listed, said)
	}
}
