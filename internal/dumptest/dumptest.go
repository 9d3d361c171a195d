// Package dumptest writes small XLA dump folders for the tests of explain and across.
package dumptest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
// the module's batch size; PID, when not 0, the process whose folder of its own (pid-N) holds it.
type File struct {
	ID    int
	Name  string
	Batch int
	PID   int
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
		if f.PID != 0 {
			p = filepath.Join(dump, fmt.Sprintf("pid-%d", f.PID), filepath.Base(p))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
		}
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

// WriteFile writes a file under dir (making its folders) and returns its path.
func WriteFile(t testing.TB, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// CacheKey is a JAX persistent-cache key of module m (its hash part made from tag).
func CacheKey(m, tag string) string { return m + "-" + strings.Repeat(tag, 64/len(tag)) }

// JAXRequest is one compile request of jit(f) as JAX 0.12 logs it with a persistent cache:
// the request, the lookup, then what became of it (lines, in order).
func JAXRequest(fn, shape string, lines ...string) string {
	s := fmt.Sprintf("Compiling jit(%s) with global shapes and types (ShapedArray(float32[%s]),). Argument mapping: (UnspecifiedValue,).\n", fn, shape)
	for _, l := range lines {
		s += l + "\n"
	}
	return s + fmt.Sprintf("Finished XLA compilation of jit(%s) in 0.25 sec\n", fn)
}

// CacheMiss is JAX 0.12's persistent-cache miss of module m.
func CacheMiss(m, key string) string {
	return fmt.Sprintf("PERSISTENT COMPILATION CACHE MISS for '%s' with key '%s'", m, key)
}

// CacheWrote is JAX 0.12's write of module m to the persistent cache.
func CacheWrote(m, key string) string {
	return fmt.Sprintf("Writing %s to persistent compilation cache with key '%s'", m, key)
}

// CacheHit is JAX 0.12's persistent-cache hit of module m.
func CacheHit(m, key string) string {
	return fmt.Sprintf("Persistent compilation cache hit for '%s' with key '%s'", m, key)
}
