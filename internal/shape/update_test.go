package shape

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	// The module's one -update flag (package golden): every test binary defines it, so that
	// `go test ./... -update` runs here too, where no golden file is.
	_ "github.com/recomp/recomp/internal/golden"
)

// TestEveryTestTakesUpdate fails on a package whose tests do not import internal/golden: its
// test binary would reject -update ("flag provided but not defined"), and `go test ./...
// -update`, docs/hacking.md's way to rewrite the golden files, would fail there. A package without
// golden files takes the flag with a blank import (update_test.go).
func TestEveryTestTakesUpdate(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	const golden = module + "internal/golden"
	tested := map[string]bool{} // package folder -> one of its tests imports golden
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		imports := tested[rel]
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			imports = imports || err == nil && p == golden
		}
		tested[rel] = imports
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(tested) < 10 {
		t.Fatalf("found tests in %d packages only: the walk is broken", len(tested))
	}
	for _, pkg := range sortedKeys(tested) {
		if !tested[pkg] && pkg != "internal/golden" {
			t.Errorf("%s: no test imports %s, so its test binary rejects -update: add %s/update_test.go with `import _ %q`",
				pkg, golden, pkg, golden)
		}
	}
	if !slices.Contains(sortedKeys(tested), "internal/golden") {
		t.Error("internal/golden's own tests not found")
	}
}
