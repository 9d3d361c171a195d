package explain

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/runfolder"
)

// What a test runner's session (recomp's pytest plugin) asks of the scan of its run folder,
// beside the tests it holds to their own compilations.

// Unblamed are the programs the scan says compiled after warm-up that are not among named (the
// programs the runner saw its tests and fixtures compile): recompilations no test can be held to.
func (s *Scan) Unblamed(named []string) []string {
	out := []string{}
	if s.Verdict == nil {
		return out
	}
	for _, p := range s.Verdict.Verdicts {
		if p.AfterWarmup > 0 && !slices.Contains(named, p.Program) {
			out = append(out, p.Program)
		}
	}
	return out
}

// Unjudged counts the HLO modules the dump of the run folder dir holds when the scan's logs show
// no compilation (no compile evidence at all, or only what says something traced or compiled,
// not how often: a tf.function's retracing warning, whose XLA compilations TF's C++ logs to the
// standard error a test runner takes); 0 when they show compilations.
func (s *Scan) Unjudged(dir string) int {
	sm := s.Ledger.Summary
	none := sm.Compilations == 0 && sm.CompileRequests == 0 ||
		slices.ContainsFunc(s.Ledger.Findings, func(f ledger.Finding) bool { return f.Kind == ledger.FindingNoEvidence })
	if !none {
		return 0
	}
	return dumpedFiles(filepath.Join(dir, runfolder.DumpName))
}

// dumpedFiles counts the files of a dump folder and of the folders of its processes (pid-N),
// hidden ones left out.
func dumpedFiles(dump string) int {
	n := 0
	folders, _ := runfolder.DumpFolders(dump)
	for _, f := range folders {
		for _, e := range f.Entries {
			if !strings.HasPrefix(e.Name(), ".") {
				n++
			}
		}
	}
	return n
}
