package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/recomp/recomp/runfolder"
)

// recomp guard of a run folder looks at it as often as recomp scan does (once, explain.ReadScan):
// before, guard expanded its inputs (one more look) and then read them.
func TestGuardLooksAtARunFolderAsScanDoes(t *testing.T) {
	dir := t.TempDir()
	log, err := os.ReadFile("../../testdata/runs/jax-0.12/partial-batch/run.log")
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		runfolder.LogName:      string(log),
		runfolder.ManifestName: `{"version":1,"command":["python","train.py"]}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	looks := func(args ...string) runfolder.Looks {
		before := runfolder.Looked()
		if code, _, stderr := runRecomp(args...); code > 1 {
			t.Fatalf("recomp %v: exit %d: %s", args, code, stderr)
		}
		return runfolder.Looked().Since(before)
	}
	scan, guard := looks("scan", "--format", "json", dir), looks("guard", "--format", "json", dir)
	if scan.Folders != 1 || guard != scan {
		t.Errorf("guard looked %+v, scan %+v", guard, scan)
	}
}

// recomp diff of two run folders looks at each once and reads each manifest once (across.OpenSide
// passes the folder down as a value).
func TestDiffLooksAtEachRunFolderOnce(t *testing.T) {
	var dirs []string
	for range 2 {
		d := t.TempDir()
		if err := os.CopyFS(d, os.DirFS("../../testdata/runs/jax-0.12/partial-batch")); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, runfolder.ManifestName), []byte(`{"version":1,"command":["python","train.py"]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	before := runfolder.Looked()
	if code, _, stderr := runRecomp("diff", "--format", "json", dirs[0], dirs[1]); code > 1 {
		t.Fatalf("recomp diff: exit %d: %s", code, stderr)
	}
	if got := runfolder.Looked().Since(before); got.Folders != 2 || got.Manifests != 2 {
		t.Errorf("looked %+v, want each of the 2 folders and manifests once", got)
	}
}
