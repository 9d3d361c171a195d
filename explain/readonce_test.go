package explain

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

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

// recomp scan of a run folder looks at the folder once and reads its manifest and its probe's
// records once; of a folder of run folders (a job's processes), each run folder likewise (their
// probe's records are not read: the manifests name the ranks). Before the run folder was read
// once, the one folder was looked at 3 times and its manifest read 3 times, the job's folders
// 11 times and their manifests 14 times. What is read is what Logs of ExpandRuns reads.
func TestScanReadsARunFolderOnce(t *testing.T) {
	one := runFolder(t, t.TempDir(), "0")
	job := t.TempDir()
	runFolder(t, filepath.Join(job, "r0"), "0")
	runFolder(t, filepath.Join(job, "r1"), "1")
	for _, c := range []struct {
		path string
		want runfolder.Looks
	}{
		{one, runfolder.Looks{Folders: 1, Manifests: 1, Probes: 1}},
		{job, runfolder.Looks{Folders: 3, Manifests: 2}}, // the job's folder, each run folder
	} {
		before := runfolder.Looked()
		s, err := ReadScan([]string{c.path}, ledger.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := runfolder.Looked().Since(before); got != c.want {
			t.Errorf("%s: looked %+v, want %+v", c.path, got, c.want)
		}
		if len(s.Ledger.Sequences) == 0 {
			t.Errorf("%s: nothing read", c.path)
		}
		old, err := Logs(ExpandRuns([]string{c.path}), ledger.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		a, errA := json.Marshal(s)
		b, errB := json.Marshal(old)
		if errA != nil || errB != nil || len(a) < 1000 || !bytes.Equal(a, b) {
			t.Errorf("%s: ReadScan and Logs of ExpandRuns differ", c.path)
		}
		if c.path == job && (s.Job == nil || len(s.Job.Ranks) != 2) {
			t.Errorf("the job's ranks: %+v", s.Job)
		}
	}
}

// ReadRankInputs reads a folder of run folders as the job's ranks, named by their manifests, and
// refuses stdin named twice.
func TestReadRankInputs(t *testing.T) {
	job := t.TempDir()
	runFolder(t, filepath.Join(job, "r0"), "0")
	runFolder(t, filepath.Join(job, "r1"), "1")
	r, err := ReadRankInputs([]string{job}, nil, RanksOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Scan.Ledger.Sequences) != 2 || r.Departed() {
		t.Errorf("%d ranks read, departed %v", len(r.Scan.Ledger.Sequences), r.Departed())
	}
	if _, err := ReadRankInputs([]string{"-", "-"}, nil, RanksOptions{}); err == nil {
		t.Error("stdin named twice was accepted")
	}
}
