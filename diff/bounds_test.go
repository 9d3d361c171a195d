package diff

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// smallModule is a 700-byte JAX-like module whose constant is c and batch b.
func smallModule(c, b int) string {
	return fmt.Sprintf(`HloModule jit_step, entry_computation_layout={(f32[%d,8]{1,0}, f32[8,4]{1,0})->f32[%d,4]{1,0}}

ENTRY %%main.7 (x.1: f32[%d,8], w.2: f32[8,4]) -> f32[%d,4] {
  %%x.1 = f32[%d,8]{1,0} parameter(0), metadata={op_name="x"}
  %%w.2 = f32[8,4]{1,0} parameter(1), metadata={op_name="w"}
  %%dot.3 = f32[%d,4]{1,0} dot(f32[%d,8]{1,0} %%x.1, f32[8,4]{1,0} %%w.2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %%constant.4 = f32[] constant(%d)
  %%broadcast.5 = f32[%d,4]{1,0} broadcast(f32[] %%constant.4), dimensions={}
  ROOT %%multiply.6 = f32[%d,4]{1,0} multiply(f32[%d,4]{1,0} %%dot.3, f32[%d,4]{1,0} %%broadcast.5)
}
`, b, b, b, b, b, b, b, c, b, b, b, b)
}

// writeVersions writes n versions of one program (module_0000 … ), version i with constant
// i+offset, except skip.
func writeVersions(t testing.TB, dir string, n, offset, skip int) {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	for i := range n {
		if i == skip {
			continue
		}
		name := filepath.Join(dir, fmt.Sprintf("module_%04d.jit_step.before_optimizations.txt", i))
		if err := os.WriteFile(name, []byte(smallModule(i+offset, 32)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestExplainManyVersions: a dump of many versions of one program holds a bounded number of
// parsed modules, explains every version against the one before reading the others two at
// a time, and keeps what each comparison found, not the modules. With -short it writes 300
// versions, not 2000 (creating a file is most of its time): still over maxHeld, and enough
// that the modules the dump holds spread under the bound per version.
func TestExplainManyVersions(t *testing.T) {
	dir := t.TempDir()
	n := 2000
	if testing.Short() {
		n = 300
	}
	if n <= 2*maxHeld {
		t.Fatalf("%d versions do not test the bound of %d held modules", n, maxHeld)
	}
	writeVersions(t, dir, n, 0, -1)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	d, err := LoadDump(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hs := Explain(d, Options{})
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := 0
	for _, f := range d.Files {
		if f.Module != nil {
			held++
		}
		if f.ModuleName != "jit_step" || f.Family != "jit_step" {
			t.Fatalf("file %+v", f)
		}
	}
	if held > maxHeld {
		t.Errorf("the dump holds %d parsed modules", held)
	}
	if len(hs) != 1 || len(hs[0].Steps) != n-1 || len(d.Problems) != 0 {
		t.Fatalf("%d histories, %d problems", len(hs), len(d.Problems))
	}
	for i, p := range hs[0].Steps {
		r := p.Result
		if r.A != nil || r.B != nil || r.Computations != nil || r.t != nil {
			t.Fatalf("step %d keeps its modules", i)
		}
		if want := fmt.Sprintf("%d → %d", i, i+1); len(r.Causes) == 0 || r.Causes[0].Kind != CauseConstant || len(r.Changes) != 1 || r.Changes[0].Old+" → "+r.Changes[0].New != want {
			t.Fatalf("step %d: %+v", i, r.Causes)
		}
	}
	if per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / int64(n); per > 4<<10 {
		t.Errorf("%d bytes held per version (a parsed module is over 100 KB)", per)
	}
	runtime.KeepAlive(hs)
}

// TestPairLargeFamilies: two dumps of many versions whose numbers differ by one and whose
// fingerprints never match are paired in dump order (scoring every pair's structure would be
// quadratic), and the extra version with its nearest neighbour. With -short the families have
// 150 versions, not 1500: still too many to score every pair.
func TestPairLargeFamilies(t *testing.T) {
	dir := t.TempDir()
	n := 1500
	if testing.Short() {
		n = 150
	}
	if n*(n-1) <= maxSimilarity {
		t.Fatalf("%d versions a side are few enough to score every pair", n)
	}
	writeVersions(t, filepath.Join(dir, "a"), n, 0, -1)
	writeVersions(t, filepath.Join(dir, "b"), n, 100_000, n*7/15) // other constants; a version in the middle missing
	a, err := LoadDump(filepath.Join(dir, "a"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := LoadDump(filepath.Join(dir, "b"), LoadOptions{})
	dd := Dumps(a, b, Options{})
	if len(dd.Pairs) != n || len(dd.UnpairedA)+len(dd.UnpairedB) != 0 {
		t.Fatalf("%d pairs, unpaired %d/%d", len(dd.Pairs), len(dd.UnpairedA), len(dd.UnpairedB))
	}
	byOrder, extra := 0, 0
	for _, p := range dd.Pairs {
		switch p.PairedBy {
		case PairedByOrder:
			byOrder++
		case PairedByExtra:
			extra++
			if p.A.ID != n-1 || p.B.ID != n-1 {
				t.Errorf("the extra version %d paired with %d, not its neighbour", p.A.ID, p.B.ID)
			}
		default:
			t.Errorf("pair %d-%d by %s", p.A.ID, p.B.ID, p.PairedBy)
		}
	}
	if byOrder != n-1 || extra != 1 {
		t.Errorf("%d by order, %d extra", byOrder, extra)
	}
}

func BenchmarkExplainVersions(b *testing.B) {
	dir := b.TempDir()
	const n = 5000
	writeVersions(b, dir, n, 0, -1)
	b.ReportAllocs()
	b.SetBytes(int64(n * len(smallModule(0, 32))))
	for b.Loop() {
		d, err := LoadDump(dir, LoadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if hs := Explain(d, Options{}); len(hs[0].Steps) != n-1 {
			b.Fatal(len(hs[0].Steps))
		}
	}
}
