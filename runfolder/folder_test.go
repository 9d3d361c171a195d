package runfolder

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two runs are compared on what their settings do, not on the run folders they name: the
// dump flags, the probe's folder on PYTHONPATH and its output file are left out; the user's
// own flags and folders stay.
func TestSettingComparable(t *testing.T) {
	for _, c := range []struct{ name, value, want string }{
		{"XLA_FLAGS", "--xla_cpu_use_thunk_runtime=false --xla_dump_to=/r/a/dump --xla_dump_hlo_as_text", "--xla_cpu_use_thunk_runtime=false"},
		{"PYTHONPATH", "/r/a/.recomp-probe:/home/u/src", "/home/u/src"},
		{"PYTHONPATH", "/r/a/.recomp-probe", ""},
		{ProbeOutVar, "/r/a/probe.jsonl", ""},
		{"JAX_LOG_COMPILES", "1", "1"},
		{"TORCH_TRACE", "/r/a/trace", ""}, // recomp run's, into the run folder
	} {
		if got := (Setting{Name: c.name, Value: c.value}).Comparable(); got != c.want {
			t.Errorf("%s=%s: %q, want %q", c.name, c.value, got, c.want)
		}
	}
	if got := (Setting{Name: "TORCH_TRACE", Value: "/home/u/traces", Kept: true}).Comparable(); got != "/home/u/traces" {
		t.Errorf("the user's own TORCH_TRACE: %q", got)
	}
}

// What the probe wrote is read record by record: a line cut by a killed run, one that is not
// JSON and one over 1 MiB (even one long line with a record's text at its end) are skipped,
// and the records around them kept; a file without a final newline still gives its last one.
func TestReadProbeSkipsBadLines(t *testing.T) {
	dir := t.TempDir()
	rec := func(line int) string {
		return fmt.Sprintf(`{"framework":"jax","event":"compile","file":"/w/a.py","line":%d,"t":1}`, line)
	}
	text := rec(1) + "\n" + "not json\n" + strings.Repeat("x", 3<<20) + rec(99) + "\n" + rec(2) + "\n" + `{"framework":"jax","ev` + "\n" + rec(3)
	if err := os.WriteFile(filepath.Join(dir, ProbeName), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, err := ReadProbe(dir)
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, r := range recs {
		lines = append(lines, r.Line)
	}
	if fmt.Sprint(lines) != "[1 2 3]" {
		t.Errorf("records at lines %v, want [1 2 3]", lines)
	}
	if recs, err := ReadProbe(t.TempDir()); recs != nil || err != nil {
		t.Errorf("no probe file: %v, %v", recs, err)
	}
}

// A launcher's rank comes from its variables, a job-wide one before a node-local one; other
// variables are not recorded, and a value that is not a rank names none.
func TestLauncherRank(t *testing.T) {
	for _, c := range []struct {
		env        []string
		rank, from string
	}{
		{[]string{"HOME=/h", "LOCAL_RANK=1", "RANK=5", "WORLD_SIZE=8"}, "5", "RANK"},
		{[]string{"OMPI_COMM_WORLD_LOCAL_RANK=0", "OMPI_COMM_WORLD_RANK=3"}, "3", "OMPI_COMM_WORLD_RANK"},
		{[]string{"PMI_RANK=2"}, "2", "PMI_RANK"},
		{[]string{"SLURM_PROCID=07", "SLURM_LOCALID=1"}, "7", "SLURM_PROCID"},
		{[]string{"LOCAL_RANK=1"}, "1", "LOCAL_RANK"},
		{[]string{"RANK=x", "PMI_RANK=4"}, "4", "PMI_RANK"},
		{[]string{"RANK=-1"}, "", ""},
		{[]string{"HOME=/h"}, "", ""},
	} {
		m := &Manifest{Launcher: LauncherEnv(c.env)}
		if _, ok := m.Launcher["HOME"]; ok {
			t.Errorf("%v: HOME recorded", c.env)
		}
		if r, from := m.Rank(); r != c.rank || from != c.from {
			t.Errorf("%v: rank %q from %q, want %q from %q", c.env, r, from, c.rank, c.from)
		}
	}
}

// A folder of run folders lists them; a run folder, a file and a folder of logs list none.
func TestRuns(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"r1", "r0", "notes"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	os.WriteFile(filepath.Join(dir, "r0", LogName), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "r1", LogName), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "a.log"), nil, 0o644)
	fs := Runs(dir)
	if len(fs) != 2 || filepath.Base(fs[0].Dir) != "r0" || filepath.Base(fs[1].Dir) != "r1" {
		t.Errorf("Runs: %+v", fs)
	}
	if Runs(filepath.Join(dir, "r0")) != nil || Runs(filepath.Join(dir, "a.log")) != nil || Runs(filepath.Join(dir, "notes")) != nil {
		t.Error("Runs listed run folders of a run folder, a file or an empty folder")
	}
	if f, ok := Of(filepath.Join(dir, "r1", LogName)); !ok || filepath.Base(f.Dir) != "r1" {
		t.Errorf("Of: %+v %v", f, ok)
	}
	if _, ok := Of(filepath.Join(dir, "a.log")); ok {
		t.Error("Of: a.log is in no run folder")
	}
}

// Read gives a run folder's files with its manifest and probe records read once; a run cut
// short, an unreadable manifest and a folder without one each say what Open's folder would.
func TestReadOnce(t *testing.T) {
	write := func(dir, name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir, own := t.TempDir(), t.TempDir()
	write(dir, LogName, "step 1\n")
	write(dir, ProbeName, `{"framework":"jax","event":"compile","file":"/w/a.py","line":7,"t":1}`+"\n")
	write(dir, ManifestName, fmt.Sprintf(`{"running":true,"wall_seconds":2.5,"dump_dir":%q}`, own))
	f, c, ok := Read(dir)
	if !ok || f.Dump != own || f.Manifest == "" {
		t.Fatalf("Read: %v %+v", ok, f)
	}
	if c.Manifest == nil || c.ManifestErr != nil || c.Manifest.WallSeconds != 2.5 || len(c.Probe) != 1 || c.Probe[0].Line != 7 || c.ProbeErr != nil {
		t.Errorf("contents %+v", c)
	}
	if n := c.Notes(); len(n) != 1 || !strings.Contains(n[0], "the run was cut") || c.Incomplete() != n[0] {
		t.Errorf("notes %q, incomplete %q", n, c.Incomplete())
	}
	if g, _ := Open(dir); g != f {
		t.Errorf("Open %+v, Read %+v", g, f)
	}

	write(dir, ManifestName, "{not json")
	if _, c, _ := Read(dir); c.Manifest != nil || c.ManifestErr == nil || len(c.Notes()) != 1 || !strings.Contains(c.Notes()[0], "could not be read") || c.Incomplete() != "" {
		t.Errorf("an unreadable manifest: %+v, notes %q", c, c.Notes())
	}
	if err := os.Remove(filepath.Join(dir, ManifestName)); err != nil {
		t.Fatal(err)
	}
	if _, c, ok := Read(dir); !ok || c.Notes() != nil || c.Manifest != nil {
		t.Errorf("no manifest: %v %+v", ok, c)
	}
	if _, _, ok := Read(own); ok {
		t.Error("a folder without run.log read as a run folder")
	}
}
