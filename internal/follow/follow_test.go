package follow

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// poll reads what the logs gained, as "log|restart|data" per chunk.
func poll(t *testing.T, fl *Follower) []string {
	t.Helper()
	chunks, warnings := fl.Poll()
	if len(warnings) > 0 {
		t.Errorf("warnings: %v", warnings)
	}
	var out []string
	for _, c := range chunks {
		r := ""
		if c.Restart {
			r = "restart"
		}
		out = append(out, filepath.Base(c.Log)+"|"+r+"|"+string(c.Data))
	}
	return out
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(s)
	f.Close()
}

func expect(t *testing.T, step string, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s: read %q, want %q", step, got, want)
	}
}

// A named file: appends, a rotation by rename (the old file's last lines first, then the new
// file from its start), a truncation in place, a file that does not exist yet.
func TestFollowFile(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "app.log")
	fl, err := New([]string{log})
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	expect(t, "before the file exists", poll(t, fl))
	appendTo(t, log, "one\ntw")
	expect(t, "created", poll(t, fl), "app.log||one\ntw")
	expect(t, "nothing new", poll(t, fl))
	appendTo(t, log, "o\n")
	expect(t, "appended", poll(t, fl), "app.log||o\n")
	appendTo(t, log, "three\n")
	if err := os.Rename(log, log+".1"); err != nil {
		t.Fatal(err)
	}
	expect(t, "renamed, no new file yet", poll(t, fl), "app.log||three\n")
	appendTo(t, log+".1", "four\n") // the process still writes its open file
	appendTo(t, log, "five\n")
	expect(t, "rotated", poll(t, fl), "app.log||four\n", "app.log|restart|five\n")
	appendTo(t, log, "six\n")
	expect(t, "after the rotation", poll(t, fl), "app.log||six\n")
	if err := os.Truncate(log, 0); err != nil {
		t.Fatal(err)
	}
	appendTo(t, log, "7\n")
	expect(t, "truncated", poll(t, fl), "app.log|restart|7\n")
	// Truncated and written again past where it was read, between two polls.
	appendTo(t, log, "eight\n")
	expect(t, "appended", poll(t, fl), "app.log||eight\n")
	os.Truncate(log, 0)
	appendTo(t, log, "a longer line than before\n")
	expect(t, "truncated and written past the offset", poll(t, fl), "app.log|restart|a longer line than before\n")
}

// A folder: the files in it and those that appear, a file renamed within it (still the same
// log, not read again), a new file of a rotated log's name (its continuation), a file removed,
// hidden and compressed files left out.
func TestFollowFolder(t *testing.T) {
	dir := t.TempDir()
	appendTo(t, filepath.Join(dir, "a.log"), "a1\n")
	appendTo(t, filepath.Join(dir, ".hidden"), "h\n")
	appendTo(t, filepath.Join(dir, "old.log.gz"), "gz")
	fl, err := New([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	expect(t, "start", poll(t, fl), "a.log||a1\n")
	appendTo(t, filepath.Join(dir, "b.log"), "b1\n")
	expect(t, "a new file", poll(t, fl), "b.log||b1\n")
	os.Rename(filepath.Join(dir, "a.log"), filepath.Join(dir, "a.log.1"))
	appendTo(t, filepath.Join(dir, "a.log.1"), "a2\n")
	expect(t, "renamed", poll(t, fl), "a.log||a2\n")
	appendTo(t, filepath.Join(dir, "a.log"), "a3\n")
	expect(t, "rotated", poll(t, fl), "a.log|restart|a3\n")
	os.Remove(filepath.Join(dir, "b.log"))
	expect(t, "removed", poll(t, fl))
	appendTo(t, filepath.Join(dir, "a.log.1"), "a4\n") // a last line the process wrote to its old file
	expect(t, "the rotated file", poll(t, fl), "a.log||a4\n")
	if len(fl.files) != 2 {
		t.Errorf("%d files still open, want 2 (the removed one is dropped)", len(fl.files))
	}
	os.Remove(filepath.Join(dir, "a.log.1"))
	expect(t, "the rotated file removed", poll(t, fl))
	if len(fl.files) != 1 {
		t.Errorf("%d files still open, want 1", len(fl.files))
	}
}

// What one Poll reads is bounded; the rest comes with the next.
func TestFollowBoundedRead(t *testing.T) {
	log := filepath.Join(t.TempDir(), "big.log")
	os.WriteFile(log, []byte(strings.Repeat("x\n", MaxRead)), 0o644)
	fl, _ := New([]string{log})
	defer fl.Close()
	total := 0
	for i := 0; i < 4; i++ {
		chunks, _ := fl.Poll()
		for _, c := range chunks {
			if len(c.Data) > MaxRead+256<<10 {
				t.Errorf("one poll read %d bytes", len(c.Data))
			}
			total += len(c.Data)
		}
	}
	if total != 2*MaxRead {
		t.Errorf("read %d bytes of %d", total, 2*MaxRead)
	}
}

// A binary file that lands in a followed folder (a core file, an executable) is skipped with a
// warning, also when it was empty when found: strings inside it are no log lines.
func TestFollowFolderSkipsBinaries(t *testing.T) {
	dir := t.TempDir()
	appendTo(t, filepath.Join(dir, "rank0.log"), "one\n")
	fl, err := New([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	expect(t, "the log", poll(t, fl), "rank0.log||one\n")
	core := filepath.Join(dir, "core.1234")
	appendTo(t, core, "")
	expect(t, "an empty file", poll(t, fl))
	appendTo(t, core, "\x7fELF\x02\x01\x01\x00Compiling jit(step) with global shapes and types [ShapedArray(float32[24,8])]\n")
	appendTo(t, filepath.Join(dir, "rank0.log"), "two\n")
	chunks, warnings := fl.Poll()
	if len(chunks) != 1 || filepath.Base(chunks[0].Log) != "rank0.log" || string(chunks[0].Data) != "two\n" {
		t.Errorf("chunks %+v", chunks)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "core.1234: skipped: binary data (an ELF executable, library or core file), not a log") {
		t.Errorf("warnings %q", warnings)
	}
	appendTo(t, core, "Compiling jit(step) with global shapes and types [ShapedArray(float32[16,8])]\n")
	expect(t, "the binary grew", poll(t, fl))
}
