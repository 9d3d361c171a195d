package runner

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recomp/recomp/internal/livetest"
	"github.com/recomp/recomp/runfolder"
)

// fullDisk writes the first room bytes, then fails as a full disk does.
type fullDisk struct {
	w    io.Writer
	room int
}

func (d *fullDisk) Write(p []byte) (int, error) {
	if len(p) <= d.room {
		d.room -= len(p)
		return d.w.Write(p)
	}
	n, _ := d.w.Write(p[:d.room])
	d.room = 0
	return n, &os.PathError{Op: "write", Path: runfolder.LogName, Err: syscall.ENOSPC}
}

// A run.log that cannot be written to the end (a full disk, by a write hook) keeps the folder:
// the lines written before, the exit code, the failure in the Result and the manifest, and the
// manifest written when the command started is replaced (not left saying it still runs).
func TestSessionFullDisk(t *testing.T) {
	testLogWriter = func(w io.Writer) io.Writer { return &fullDisk{w: w, room: 4096} }
	defer func() { testLogWriter = nil }()
	out := filepath.Join(t.TempDir(), "r")
	s, err := Prepare(SessionOptions{Out: out, Command: []string{"sh", "-c", `i=0; while [ $i -lt 3000 ]; do echo "line $i"; i=$((i+1)); done; exit 3`},
		Framework: "auto", Dump: runfolder.DumpNone, Environ: []string{"PATH=" + os.Getenv("PATH")}, Start: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	var stdout livetest.Buffer
	res, err := s.Run(Options{Stdout: &stdout, Stderr: &stdout})
	if err != nil {
		t.Fatalf("a full disk taken for a command that did not start: %v", err)
	}
	if res.ExitCode != 3 || !strings.Contains(res.LogError, "no space left") || res.LogLost == 0 || res.Lines != 3000 {
		t.Errorf("result: exit %d, log error %q, lost %d, lines %d", res.ExitCode, res.LogError, res.LogLost, res.Lines)
	}
	log, err := os.ReadFile(filepath.Join(out, runfolder.LogName))
	if err != nil || len(log) != 4096 || !strings.Contains(string(log), " line 0\n") {
		t.Fatalf("run.log: %v, %d bytes", err, len(log))
	}
	_, c, _ := runfolder.Read(out)
	if notes := c.Notes(); len(notes) != 1 || !strings.Contains(notes[0], "the run was cut") {
		t.Errorf("before the final manifest the folder says %q", notes)
	}
	m := s.Manifest(res, "test", time.Second)
	if err := runfolder.WriteManifest(out, m); err != nil {
		t.Fatal(err)
	}
	_, c, _ = runfolder.Read(out)
	if notes := c.Notes(); len(notes) != 1 || !strings.Contains(notes[0], "run.log is incomplete") {
		t.Errorf("the folder says %q", notes)
	}
}

// The final manifest goes over the one of the start in place when nothing else can be written.
func TestWriteManifestInPlace(t *testing.T) {
	dir := t.TempDir()
	if err := runfolder.WriteStartManifest(dir, &runfolder.Manifest{Version: 1, Running: true}); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(filepath.Join(dir, runfolder.ManifestName)); st.Size() != 64<<10 {
		t.Fatalf("start manifest of %d bytes", st.Size())
	}
	os.Chmod(dir, 0o555) // no new file can be made: the atomic write fails
	defer os.Chmod(dir, 0o755)
	if f, err := os.CreateTemp(dir, "x"); err == nil {
		f.Close()
		os.Remove(f.Name())
		t.Skip("a read-only folder is writable here (root)")
	}
	if err := runfolder.WriteManifest(dir, &runfolder.Manifest{Version: 1, ExitCode: 7}); err != nil {
		t.Fatal(err)
	}
	m, err := runfolder.ReadManifest(filepath.Join(dir, runfolder.ManifestName))
	if err != nil || m.Running || m.ExitCode != 7 {
		t.Errorf("%+v %v", m, err)
	}
}
