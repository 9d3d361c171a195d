// Package dumptest writes small XLA dump folders for the tests of explain and across.
package dumptest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/recomp/recomp/diff"
)

// Module is a small HLO module named name whose one parameter is f32[batch,8].
func Module(name string, batch int) string {
	return fmt.Sprintf(`HloModule %[1]s, entry_computation_layout={(f32[%[2]d,8]{1,0})->f32[%[2]d,8]{1,0}}

ENTRY %%main.3 (x.1: f32[%[2]d,8]) -> f32[%[2]d,8] {
  %%x.1 = f32[%[2]d,8]{1,0} parameter(0)
  ROOT %%negate.2 = f32[%[2]d,8]{1,0} negate(%%x.1)
}
`, name, batch)
}

// File is one module of a dump: the name XLA gives the file (module_NNNN.NAME.stage.txt) and
// the module's batch size.
type File struct {
	ID    int
	Name  string
	Batch int
}

// Write writes the modules into dir/dump and loads it; a failure fails the test.
func Write(t testing.TB, dir string, files ...File) (string, *diff.Dump) {
	t.Helper()
	dump := filepath.Join(dir, "dump")
	if err := os.MkdirAll(dump, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		p := filepath.Join(dump, fmt.Sprintf("module_%04d.%s.before_optimizations.txt", f.ID, f.Name))
		if err := os.WriteFile(p, []byte(Module(f.Name, f.Batch)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := diff.LoadDump(dump, diff.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return dump, d
}
