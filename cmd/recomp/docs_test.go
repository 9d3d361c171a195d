package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/report"
	"github.com/recomp/recomp/runfolder"
)

// TestJSONContractDocumented: every field of every JSON document recomp writes, and every value
// of the kinds those documents hold, is named in docs/json.md, so the documented contract cannot
// fall behind the code.
func TestJSONContractDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/json.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type, string)
	walk = func(ty reflect.Type, at string) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Map {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] || ty.PkgPath() == "time" {
			return
		}
		seen[ty] = true
		for i := 0; i < ty.NumField(); i++ {
			f := ty.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous && name == "" { // encoding/json writes its fields as the document's own
				walk(f.Type, at)
				continue
			}
			if name == "" || name == "-" {
				continue
			}
			if !strings.Contains(doc, "`"+name+"`") {
				t.Errorf("docs/json.md does not document %s.%s (`%s`)", at, f.Name, name)
			}
			walk(f.Type, at+"."+name)
		}
	}
	for _, v := range []any{report.ScanJSON{Gate: &report.GateJSON{}}, report.GateJSON{}, report.DiffJSON{}, report.CacheJSON{},
		report.RunJSON{}, runfolder.Manifest{}, gate.Baseline{}, report.RunsDiffJSON{}, report.RanksJSON{}, report.CoverageJSON{}} {
		walk(reflect.TypeOf(v), reflect.TypeOf(v).Name())
	}

	// The values of the string kinds the documents carry, read from the source so a new kind
	// cannot be added without documenting it.
	kinds := map[string]string{
		"../../logscan": "Kind Producer", "../../cache": "FindingKind Severity EntryKind",
		"../../diff": "ChangeKind CauseKind PairedBy", "../../gate": "FailureKind", "../../runfolder": "Framework DumpMode",
		"../../across": "MissReason DivergenceKind", "../../frameworks/cause": "Kind",
	}
	// The kinds of cache entries are the units' data, not constants.
	for _, k := range frameworks.CacheKinds() {
		if !strings.Contains(doc, "`"+k+"`") {
			t.Errorf("docs/json.md does not name the cache entry kind %q (frameworks.CacheKinds)", k)
		}
	}
	for dir, types := range kinds {
		want := strings.Fields(types)
		for _, v := range constValues(t, dir, want) {
			if !strings.Contains(doc, "`"+v+"`") {
				t.Errorf("docs/json.md does not name the value %q (%s, one of %s)", v, dir, types)
			}
		}
	}
}

// constValues returns the string values of the constants of the named types in a package.
func constValues(t *testing.T, dir string, types []string) []string {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if name := e.Name(); !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				id, ok := vs.Type.(*ast.Ident)
				if !ok || !contains(types, id.Name) {
					continue
				}
				for _, v := range vs.Values {
					if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						s, _ := strconv.Unquote(lit.Value)
						out = append(out, s)
					}
				}
			}
		}
	}
	if len(out) == 0 {
		t.Errorf("%s: no constants of %v", dir, types)
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestREADMEExamples runs every example in README.md and the pages of docs/ — a ```text block
// whose first line is "$ recomp ARGS" — from the repository root and compares what it prints
// with the block, so the README and the docs show what recomp really says.
func TestREADMEExamples(t *testing.T) {
	pages, _ := filepath.Glob("../../docs/*.md")
	pages = append([]string{"../../README.md"}, pages...)
	type example struct{ page, command, output string }
	var examples []example
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile("(?s)```text\n(\\$ recomp [^\n]*)\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
			examples = append(examples, example{strings.TrimPrefix(page, "../../"), m[1], m[2]})
		}
		if page == "../../README.md" && len(examples) < 3 {
			t.Fatalf("README.md has %d examples, want at least 3", len(examples))
		}
	}
	if len(examples) < 15 { // the README's and the nine docs/examples.md and the command pages hold
		t.Fatalf("README.md and docs/ have %d examples, want at least 15", len(examples))
	}
	root, _ := filepath.Abs("../..")
	t.Chdir(root)
	t.Setenv("NO_COLOR", "1")
	for _, ex := range examples {
		args := strings.Fields(strings.TrimPrefix(ex.command, "$ recomp "))
		code, stdout, stderr := runIn(t, "", args...)
		if code > 1 {
			t.Errorf("%s: %s: exit %d: %s", ex.page, ex.command, code, stderr)
			continue
		}
		if got, want := strings.TrimRight(stdout, "\n"), strings.TrimRight(ex.output, "\n"); got != want {
			t.Errorf("%s: %s prints\n%s\n\n%s shows\n%s", ex.page, ex.command, got, ex.page, want)
		}
	}
}
