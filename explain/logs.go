package explain

import (
	"time"

	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/report"
	"github.com/recomp/recomp/runner"
	"github.com/recomp/recomp/verdict"
)

// Logs reads logs into a scan report with its verdict (recomp scan and guard). A run folder of
// recomp run given alone lends its manifest's wall time (shares of the run) and its probe's
// lines of the program's own code.
func Logs(paths []string, opt ledger.ReadOptions) (*report.Scan, error) {
	s, err := ledger.ReadLogs(ledger.Files(paths), opt)
	if err != nil {
		return nil, err
	}
	var wall time.Duration
	if len(paths) == 1 {
		if f, ok := runner.OpenFolder(paths[0]); ok {
			if f.Manifest != "" {
				if m, err := runner.ReadManifest(f.Manifest); err == nil {
					wall = time.Duration(m.WallSeconds * float64(time.Second))
				}
			}
			if recs, err := runner.ReadProbe(f.Dir); err == nil && len(recs) > 0 {
				attachProbe(s.Ledger, recs)
			}
		}
	}
	return &report.Scan{Scan: *s, Verdict: verdict.Build(verdict.Input{Ledger: s.Ledger, Wall: wall})}, nil
}
