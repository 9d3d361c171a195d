package explain

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/runfolder"
)

// stoppedRun is a real run recomp run --fail-on-recompile stopped: its run.log goes on after the
// manifest's stopped_line with the KeyboardInterrupt's traceback through JAX's pjit.
const stoppedRun = "../testdata/runs/jax-0.12/stopped"

// A run recomp stopped is read up to the stop whether the folder or its run.log is named, in a
// scan and in the ranks of a job: the traceback after it is no compile record recomp
// could not read. The same folder without the stop line reads it as one (what the line is for).
func TestStoppedRunReadToTheStop(t *testing.T) {
	unread := func(t *testing.T, dir string) []int {
		t.Helper()
		log := filepath.Join(dir, runfolder.LogName)
		var n []int
		for _, paths := range [][]string{{dir}, {log}, {log, log}} {
			s, err := Logs(paths, ledger.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			n = append(n, s.Ledger.Summary.UnreadRecords)
		}
		r, err := ReadRankInputs([]string{log, log}, nil, RanksOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n = append(n, r.Scan.Ledger.Summary.UnreadRecords)
		return n
	}
	for i, n := range unread(t, stoppedRun) {
		if n != 0 {
			t.Errorf("input %d: %d lines read as compile records recomp could not read, after the stop", i, n)
		}
	}
	cut := t.TempDir()
	for _, name := range []string{runfolder.LogName, runfolder.DumpName} {
		if err := os.Symlink(filepath.Join(mustAbs(t, stoppedRun), name), filepath.Join(cut, name)); err != nil {
			t.Fatal(err)
		}
	}
	m, err := runfolder.ReadManifest(filepath.Join(stoppedRun, runfolder.ManifestName))
	if err != nil || m.StoppedLine == 0 {
		t.Fatalf("the run's manifest has no stop line: %v", err)
	}
	m.StoppedLine = 0
	if err := runfolder.WriteManifest(cut, m); err != nil {
		t.Fatal(err)
	}
	for i, n := range unread(t, cut) {
		if n == 0 {
			t.Errorf("input %d: without the stop line the traceback is no unread record: the test shows nothing", i)
		}
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
