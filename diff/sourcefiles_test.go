package diff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run folder's dump names the program's files as the process saw them (absolute); loaded with
// LoadOptions.SourceFiles, every module — held, or read again to be compared — names them as the
// rename says, so the evidence under an answer gives a path the user can open.
func TestLoadDumpRenamesSourceFiles(t *testing.T) {
	dir := t.TempDir()
	mod := func(n string) string {
		return `HloModule jit_step
ENTRY e {
  x = f32[` + n + `,4]{1,0} parameter(0)
  c = f32[] constant(` + n + `), metadata={op_name="jit(step)/div" source_file="/w/run/train.py" source_line=12}
  ROOT r = f32[] reduce(x, c), dimensions={0,1}, to_apply=add
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
`
	}
	for i, n := range []string{"8", "6"} {
		name := filepath.Join(dir, "module_000"+string(rune('0'+i))+".jit_step.before_optimizations.txt")
		if err := os.WriteFile(name, []byte(mod(n)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rel := func(f string) string { return strings.TrimPrefix(f, "/w/run/") }
	for _, hold := range []int64{0, 1} { // held, and read again to be compared
		d, err := LoadDump(dir, LoadOptions{SourceFiles: rel, HoldBytes: hold})
		if err != nil || len(d.Files) != 2 {
			t.Fatalf("hold %d: %v, %d files", hold, err, len(d.Files))
		}
		a, _ := d.Module(d.Files[0])
		b, _ := d.Module(d.Files[1])
		var ev []string
		for _, c := range Compare(a, b).Causes {
			ev = append(ev, c.Evidence...)
		}
		if all := strings.Join(ev, "\n"); !strings.Contains(all, "at train.py:12") || strings.Contains(all, "/w/run") {
			t.Errorf("hold %d: evidence\n%s", hold, all)
		}
	}
}
