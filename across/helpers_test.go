package across

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/explain"
)

// module is a small HLO module named name whose one parameter is f32[batch,8].
func module(name string, batch int) string {
	return fmt.Sprintf(`HloModule %[1]s, entry_computation_layout={(f32[%[2]d,8]{1,0})->f32[%[2]d,8]{1,0}}

ENTRY %%main.3 (x.1: f32[%[2]d,8]) -> f32[%[2]d,8] {
  %%x.1 = f32[%[2]d,8]{1,0} parameter(0)
  ROOT %%negate.2 = f32[%[2]d,8]{1,0} negate(%%x.1)
}
`, name, batch)
}

// dumpFile is one module of a dump: the name XLA gives the file (module_NNNN.NAME.stage.txt)
// and the module's batch size.
type dumpFile struct {
	id    int
	name  string
	batch int
}

// writeDump writes the modules into dir/dump and loads it.
func writeDump(t *testing.T, dir string, files ...dumpFile) (string, *diff.Dump) {
	t.Helper()
	dump := filepath.Join(dir, "dump")
	if err := os.MkdirAll(dump, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		p := filepath.Join(dump, fmt.Sprintf("module_%04d.%s.before_optimizations.txt", f.id, f.name))
		if err := os.WriteFile(p, []byte(module(f.name, f.batch)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := diff.LoadDump(dump, diff.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return dump, d
}

// pairs says what an explanation compared: "label: A -> B: first cause".
func pairs(d *explain.Diff) string {
	var out []string
	for _, p := range d.Pairs {
		cause := ""
		if len(p.Result.Causes) > 0 {
			cause = string(p.Result.Causes[0].Kind)
		}
		out = append(out, fmt.Sprintf("%s: %s -> %s: %s", p.Label(), filepath.Base(p.A.Path)[:11], filepath.Base(p.B.Path)[:11], cause))
	}
	return strings.Join(out, "; ")
}
