package torchxla_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/recomp/recomp/internal/scantest"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/logscan"
)

// The CPU client's warning for each entry it cannot deserialise is counted as torch_xla counts
// it (PersistentCacheDeserializeFailure), for a run that prints no metrics report: the ledger's
// note then says why the run compiled what its cache held.
func TestDeserializeFailureLines(t *testing.T) {
	line := "2026-12-02 03:49:32.324891: W torch_xla/csrc/runtime/pjrt_computation_client.cpp:694] Failed to deserialize executable: " +
		"UNIMPLEMENTED: Deserializing serialized executable not supported.\n"
	log := line + "loss 1.0\n" + line
	evs, st := scantest.Scan(t, log, logscan.Options{})
	var counts []int
	for _, ev := range evs {
		if ev.Kind == logscan.FrameworkMetric && ev.Detail == "PersistentCacheDeserializeFailure" {
			counts = append(counts, ev.Count)
		}
	}
	if fmt.Sprint(counts) != "[1 2]" || st.Unread != 0 {
		t.Errorf("counts %v, unread %d", counts, st.Unread)
	}
	s, err := ledger.ReadLogs([]ledger.Log{{Path: "run.log", Reader: strings.NewReader(log)}}, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range s.Ledger.Findings {
		found = found || f.Kind == ledger.FindingCacheUnusable && strings.Contains(f.Message, "held 2 executable(s)") && f.Line == 3
	}
	if !found {
		t.Errorf("findings %+v", s.Ledger.Findings)
	}
}
