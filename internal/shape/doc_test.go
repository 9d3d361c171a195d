package shape

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docLines is the size (lines of non-test Go) from which a package keeps a doc.go that maps
// its files.
const docLines = 1500

// TestDocMapsFiles fails on a package of more than docLines lines without a doc.go whose
// package comment names each of the package's files (ledger's comment is the model: which file
// does which job).
func TestDocMapsFiles(t *testing.T) {
	imports := moduleImports(t) // every package of the module, by its path
	root, _ := filepath.Abs("../..")
	for _, pkg := range sortedKeys(imports) {
		dir := filepath.Join(root, filepath.FromSlash(pkg))
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var files []string
		lines := 0
		for _, e := range entries {
			name := e.Name()
			if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			lines += strings.Count(string(b), "\n")
			if name != "doc.go" {
				files = append(files, name)
			}
		}
		if lines <= docLines || strings.HasPrefix(pkg, "cmd/") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, "doc.go"), nil, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil || f.Doc == nil {
			t.Errorf("%s has %d lines and no doc.go with its package comment: add one that maps its files", pkg, lines)
			continue
		}
		doc := f.Doc.Text()
		for _, name := range files {
			if !regexp.MustCompile(`(^|[^\w.])` + regexp.QuoteMeta(name) + `\b`).MatchString(doc) {
				t.Errorf("%s/doc.go does not say what %s holds", pkg, name)
			}
		}
	}
}
