package skipped

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

func TestLine(t *testing.T) {
	dir := t.TempDir()
	if got := Line(dir); got != "" {
		t.Errorf("no records: %q, want none", got)
	}
	rec := func(k Kind, detail string) string { return k.what + "\t" + k.how + "\t" + detail + "\n" }
	os.WriteFile(filepath.Join(dir, "101"), []byte(rec(Live, "RECOMP_LIVE_TF_2_21")+rec(Corpus, "")+rec(Live, "RECOMP_LIVE_JAX_0_12")+rec(Live, "RECOMP_LIVE_TF_2_21")), 0o600)
	os.WriteFile(filepath.Join(dir, "102"), []byte(rec(Browser, "")+"a line of another shape\n"), 0o600)
	want := "go test: skipped 1 test in a browser (apt-get install chromium or set RECOMP_CHROMIUM); " +
		"3 tests of live runs (RECOMP_LIVE_JAX_0_12, RECOMP_LIVE_TF_2_21 not set: set each to what testdata/runs/gen/venv.sh testdata/runs/gen/MATRIX.txt prints, or run .ci/run); " +
		"1 test of the shared corpus (put it in ../shared, or run .ci/run)"
	if got := Line(dir); got != want {
		t.Errorf("Line:\n got %q\nwant %q", got, want)
	}
}

func TestListArgs(t *testing.T) {
	for _, c := range []struct{ args, want []string }{
		{nil, nil},
		{[]string{"-count=1", "./..."}, []string{"./..."}},
		{[]string{"-count", "1", "-run", "TestX", "-v", "./pkg", "./other"}, []string{"./pkg", "./other"}},
		{[]string{"-tags", "netgo", "-short", "./..."}, []string{"-tags=netgo", "./..."}},
		{[]string{"-tags=a,b", "./x", "-args", "-foo", "bar"}, []string{"-tags=a,b", "./x"}},
		{[]string{"-timeout", "5m", "-p", "2", "-race", "."}, []string{"."}},
	} {
		if got := listArgs(c.args); !slices.Equal(got, c.want) {
			t.Errorf("listArgs(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}

// TestSkipRecords: a skip under a go command is recorded in that command's folder.
func TestSkipRecords(t *testing.T) {
	dir := recordDir()
	if dir == "" {
		t.Skip("not run by a go command on Linux: nothing is recorded")
	}
	before, _ := os.ReadFile(filepath.Join(dir, itoa(os.Getpid())))
	t.Run("skips", func(t *testing.T) { Skip(t, Browser, "", "a test of the recording") })
	after, _ := os.ReadFile(filepath.Join(dir, itoa(os.Getpid())))
	if want := string(before) + Browser.what + "\t" + Browser.how + "\t\n"; string(after) != want {
		t.Errorf("the record file holds %q, want %q", after, want)
	}
	// the record is this test's own: take it back, or the line would name it
	if len(before) == 0 {
		os.Remove(filepath.Join(dir, itoa(os.Getpid())))
		os.Remove(dir) // only when empty: another package's records stay
	} else {
		os.WriteFile(filepath.Join(dir, itoa(os.Getpid())), before, 0o600)
	}
}

// TestSweep: the folder of a go command that ended goes; this one's stays.
func TestSweep(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	gone := filepath.Join(os.TempDir(), "recomp-skipped-999999999-1")
	live := filepath.Join(os.TempDir(), "recomp-skipped-"+itoa(os.Getpid())+"-"+started(os.Getpid()))
	other := filepath.Join(os.TempDir(), "unrelated")
	for _, d := range []string{gone, live, other} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	sweep()
	for d, want := range map[string]bool{gone: false, live: started(os.Getpid()) != "", other: true} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("%s: there %v after sweep, want %v", d, err == nil, want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
