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
	} {
		if got := (Setting{Name: c.name, Value: c.value}).Comparable(); got != c.want {
			t.Errorf("%s=%s: %q, want %q", c.name, c.value, got, c.want)
		}
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
