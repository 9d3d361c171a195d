package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/recomp/recomp/runfolder"
)

// Round 4 (issue 43), classes 5 and 6.

// Class 5: two commands that differ only in a byte that is not UTF-8 are told apart in the run
// folder's manifest and in report.json, and the manifest reads back as the command ran.
func TestRunKeepsArgumentBytes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	args := []string{"true", "caf\xe9", "caf\xe8"}
	code, _, stderr := runIn(t, "", append([]string{"run", "--out", dir, "--"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m, err := runfolder.ReadManifest(filepath.Join(dir, runfolder.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.Command, args) {
		t.Errorf("manifest command %q, ran %q", m.Command, args)
	}
	for _, name := range []string{runfolder.ManifestName, "report.json"} {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		if !bytes.Contains(b, []byte(`"caf\udce9"`)) || !bytes.Contains(b, []byte(`"caf\udce8"`)) {
			t.Errorf("%s does not tell the arguments apart:\n%s", name, b)
		}
	}
}
