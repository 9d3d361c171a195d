package across

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/runfolder"
)

// runFolder makes a run folder of a shipped run's log, with a manifest naming its launcher's
// rank and the probe's records.
func runFolder(t *testing.T, dir, rank string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile("../testdata/runs/jax-0.12/partial-batch/run.log")
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		runfolder.LogName:      string(log),
		runfolder.ManifestName: `{"version":1,"command":["python","train.py"],"launcher":{"RANK":"` + rank + `"}}`,
		runfolder.ProbeName:    `{"framework":"python","event":"versions","t":1,"pid":7}` + "\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// EvaluateGuard takes the paths as the command line names them: a run folder is looked at once
// (its manifest and probe's records read once), a folder of run folders stands for its run
// folders, as in scan (explain.ReadScan).
func TestGuardReadsARunFolderOnce(t *testing.T) {
	one := runFolder(t, t.TempDir(), "0")
	job := t.TempDir()
	runFolder(t, filepath.Join(job, "r0"), "0")
	runFolder(t, filepath.Join(job, "r1"), "1")
	for _, c := range []struct {
		path      string
		want      runfolder.Looks
		processes int
	}{
		{one, runfolder.Looks{Folders: 1, Manifests: 1, Probes: 1}, 1},
		{job, runfolder.Looks{Folders: 3, Manifests: 2}, 2},
	} {
		before := runfolder.Looked()
		g, err := EvaluateGuard(GuardOptions{Logs: []string{c.path}})
		if err != nil {
			t.Fatal(err)
		}
		if got := runfolder.Looked().Since(before); got != c.want {
			t.Errorf("%s: looked %+v, want %+v", c.path, got, c.want)
		}
		if len(g.Scan.Ledger.Sequences) != c.processes {
			t.Errorf("%s: %d processes read, want %d", c.path, len(g.Scan.Ledger.Sequences), c.processes)
		}
	}
}

// WriteGuardBaseline writes the run folder's families and never over one of its inputs.
func TestWriteGuardBaseline(t *testing.T) {
	dir := runFolder(t, t.TempDir(), "0")
	out := filepath.Join(t.TempDir(), "baseline.json")
	b, err := WriteGuardBaseline(out, []string{dir}, ledger.ReadOptions{})
	if err != nil || len(b.Families) == 0 {
		t.Fatalf("baseline %+v, %v", b, err)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, runfolder.LogName)
	if _, err := WriteGuardBaseline(log, []string{dir}, ledger.ReadOptions{}); !errors.Is(err, gate.ErrWouldOverwriteInput) {
		t.Errorf("writing over the run's log: %v", err)
	}
}
