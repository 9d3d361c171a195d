package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recomp/recomp/report"
)

// jobFolder copies the two rank logs of the real ranks run into run folders named r0 and r1
// under a job folder (as `recomp run --out job/rN` per rank leaves them).
func jobFolder(t *testing.T) string {
	t.Helper()
	job := filepath.Join(t.TempDir(), "job")
	for _, r := range []string{"0", "1"} {
		b, err := os.ReadFile("../../testdata/runs/jax-0.12/ranks/rank" + r + ".log")
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(job, "r"+r), 0o755)
		if err := os.WriteFile(filepath.Join(job, "r"+r, "run.log"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return job
}

// Run folders given in reverse (r1 r0) are ranked by their names, and ranks, guard and scan
// each take the folder that holds them as the job.
func TestJobOfRunFolders(t *testing.T) {
	job := jobFolder(t)
	for _, args := range [][]string{{filepath.Join(job, "r1"), filepath.Join(job, "r0")}, {job}} {
		code, stdout, stderr := runRecomp(append([]string{"ranks", "--format", "json"}, args...)...)
		var doc report.RanksJSON
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 1 {
			t.Fatalf("ranks %v: exit %d: %v\n%s", args, code, err, stderr)
		}
		if len(doc.Divergences) != 1 || doc.Divergences[0].Rank != "1" || doc.Divergences[0].Step == nil || *doc.Divergences[0].Step != 3 {
			t.Errorf("ranks %v: divergences %+v, want rank 1 at step 3", args, doc.Divergences)
		}
		if len(doc.Ranks) != 2 || filepath.Base(doc.Ranks[1].Name) != "r1" || doc.Ranks[1].RankFrom != "file name" {
			t.Errorf("ranks %v: %+v", args, doc.Ranks)
		}
	}
	code, stdout, stderr := runRecomp("scan", job)
	if code != 0 || !strings.Contains(stdout, "2 inputs") {
		t.Errorf("scan of a folder of run folders: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := runRecomp("guard", "--ranks-consistent", job); code != 1 {
		t.Errorf("guard --ranks-consistent of a folder of run folders: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runRecomp("guard", job); code != 1 || stderr != "" {
		t.Errorf("guard of a folder of run folders: exit %d\n%s", code, stderr)
	}
}
