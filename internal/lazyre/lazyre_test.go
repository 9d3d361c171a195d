package lazyre

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

const importPath = "github.com/recomp/recomp/internal/lazyre"

// TestEveryExpressionCompiles compiles every expression given to New in the module's Go
// files (tests included), and fails on one that does not compile or that this test cannot
// read (it reads string literals, the package's string constants, their sums and
// regexp.QuoteMeta of them): a typo in a stack's pattern fails here, not at the first line of
// a user's log that reaches it. It fails too on a package variable of a non-test file
// compiled with regexp.MustCompile, which every start of the binary would pay for.
func TestEveryExpressionCompiles(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		found, problems := checkDir(path)
		n += found
		for _, p := range problems {
			t.Error(p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The module holds some 190; far fewer means the walk missed them.
	if n < 150 {
		t.Errorf("found %d expressions given to lazyre.New in the module, want at least 150", n)
	}
}

// checkDir compiles each expression given to New in the Go files of dir; it returns how many
// there were and what is wrong with them, each with its file and line.
func checkDir(dir string) (n int, problems []string) {
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return 0, []string{err.Error()}
	}
	var files []*ast.File
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return 0, []string{err.Error()}
		}
		files = append(files, f)
	}
	consts := map[string]map[string]string{} // by package name (x and x_test), the string constants
	for _, f := range files {
		if consts[f.Name.Name] == nil {
			consts[f.Name.Name] = map[string]string{}
		}
		stringConsts(f, consts[f.Name.Name])
	}
	for i, f := range files {
		if !strings.HasSuffix(names[i], "_test.go") {
			problems = append(problems, compiledAtInit(fset, f)...)
		}
		name := importName(f)
		if name == "" {
			continue
		}
		ast.Inspect(f, func(node ast.Node) bool {
			call, ok := node.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 || !isCall(call.Fun, name, "New") {
				return true
			}
			n++
			pos := fset.Position(call.Pos())
			expr, ok := constString(call.Args[0], consts[f.Name.Name])
			if !ok {
				problems = append(problems, fmt.Sprintf("%s:%d: lazyre.New is given an expression this test cannot read: write it as literals and constants", pos.Filename, pos.Line))
			} else if _, err := regexp.Compile(expr); err != nil {
				problems = append(problems, fmt.Sprintf("%s:%d: %v", pos.Filename, pos.Line, err))
			}
			return true
		})
	}
	return n, problems
}

// compiledAtInit names each regexp.MustCompile in the package-level declarations of f: an
// expression compiled when the binary starts, whichever command it runs.
func compiledAtInit(fset *token.FileSet, f *ast.File) []string {
	var problems []string
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
			ast.Inspect(g, func(node ast.Node) bool {
				if call, ok := node.(*ast.CallExpr); ok && isCall(call.Fun, "regexp", "MustCompile") {
					pos := fset.Position(call.Pos())
					problems = append(problems, fmt.Sprintf("%s:%d: regexp.MustCompile in a package variable compiles at every start of the binary: use lazyre.New", pos.Filename, pos.Line))
				}
				return true
			})
		}
	}
	return problems
}

// importName is the name f imports this package by ("" when it does not).
func importName(f *ast.File) string {
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == importPath {
			if imp.Name != nil {
				return imp.Name.Name
			}
			return "lazyre"
		}
	}
	return ""
}

// stringConsts adds to consts the file's package-level constants whose values constString
// reads, as far as they are known (constants of constants declared later in the file, or in
// a file read later, are not).
func stringConsts(f *ast.File, consts map[string]string) {
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, id := range vs.Names {
				if i < len(vs.Values) {
					if s, ok := constString(vs.Values[i], consts); ok {
						consts[id.Name] = s
					}
				}
			}
		}
	}
}

// isCall says whether fun is pkg.name.
func isCall(fun ast.Expr, pkg, name string) bool {
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg
}

// constString is the value of e when it is a string literal, one of consts, a sum of them or
// regexp.QuoteMeta of one.
func constString(e ast.Expr, consts map[string]string) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.Ident:
		s, ok := consts[e.Name]
		return s, ok
	case *ast.ParenExpr:
		return constString(e.X, consts)
	case *ast.CallExpr:
		if !isCall(e.Fun, "regexp", "QuoteMeta") || len(e.Args) != 1 {
			return "", false
		}
		s, ok := constString(e.Args[0], consts)
		return regexp.QuoteMeta(s), ok
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		x, ok := constString(e.X, consts)
		if !ok {
			return "", false
		}
		y, ok := constString(e.Y, consts)
		return x + y, ok
	}
	return "", false
}

// TestConstString holds constString to what it reads and what it refuses.
func TestConstString(t *testing.T) {
	consts := map[string]string{"k": "a.b"}
	for src, want := range map[string]string{"`a\\d`": `a\d`, `"a" + ("b" + ` + "`c`)": "abc", `"^" + regexp.QuoteMeta(k) + k`: `^a\.ba.b`} {
		e, err := parser.ParseExpr(src)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := constString(e, consts); !ok || got != want {
			t.Errorf("constString(%s) = %q, %v; want %q", src, got, ok, want)
		}
	}
	for _, src := range []string{"x", `"a" + x`, "1", `fmt.Sprint("a")`, `"a" - "b"`, `strings.ToLower(k)`} {
		e, err := parser.ParseExpr(src)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := constString(e, consts); ok {
			t.Errorf("constString(%s) = %q, true; want refused", src, got)
		}
	}
}

// TestCheckDirFindsBadExpression makes sure checkDir reports an expression that does not
// compile and one it cannot read, with file and line, under any name a file imports the
// package by, reads a constant of another file of the package, and reports a package
// variable compiled with regexp.MustCompile (not one compiled in a function).
func TestCheckDirFindsBadExpression(t *testing.T) {
	dir := t.TempDir()
	a := "package x\n\nimport lr \"" + importPath + "\"\n\nvar a = lr.New(`ok` + k)\nvar b = lr.New(`(`)\nvar c = lr.New(s)\nvar s = \"x\"\n"
	b := "package x\n\nimport \"regexp\"\n\nconst k = `[a-z]`\n\nvar d = regexp.MustCompile(`d`)\n\nfunc f() { _ = regexp.MustCompile(`e`) }\n"
	for name, src := range map[string]string{"a.go": a, "b.go": b} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	n, problems := checkDir(dir)
	if n != 3 {
		t.Errorf("checkDir counted %d calls of New, want 3", n)
	}
	path := filepath.Join(dir, "a.go")
	want := []string{path + ":6: error parsing regexp: missing closing ): `(`", path + ":7: lazyre.New is given an expression this test cannot read: write it as literals and constants",
		filepath.Join(dir, "b.go") + ":7: regexp.MustCompile in a package variable compiles at every start of the binary: use lazyre.New"}
	if !slices.Equal(problems, want) {
		t.Errorf("checkDir's problems:\n%q\nwant\n%q", problems, want)
	}
}

// TestLazy holds a Regexp to compiling on first use, to regexp's answers, and to one compiled
// expression among goroutines that race to use it.
func TestLazy(t *testing.T) {
	r := New(`a(?P<n>\d+)`)
	if r.String() != `a(?P<n>\d+)` || r.re.Load() != nil {
		t.Fatal("New or String compiled the expression")
	}
	var wg sync.WaitGroup
	got := make([]*regexp.Regexp, 8)
	for i := range got {
		wg.Go(func() { got[i] = r.Regexp() })
	}
	wg.Wait()
	for _, re := range got {
		if re == nil || re != got[0] {
			t.Fatal("goroutines got different compiled expressions")
		}
	}
	if !r.MatchString("xa12") || r.MatchString("ab") || !slices.Equal(r.FindStringSubmatch("a1 a23"), []string{"a1", "1"}) ||
		r.SubexpIndex("n") != 1 || r.ReplaceAllString("a1 a2", "<$n>") != "<1> <2>" || r.String() != got[0].String() {
		t.Error("a Regexp answers other than regexp's")
	}
}

// TestInvalidPanics holds an invalid expression to panicking at its first use, as
// regexp.MustCompile does at init, and at every later one.
func TestInvalidPanics(t *testing.T) {
	r := New(`(`)
	for range 2 {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("an invalid expression did not panic at its use")
				}
			}()
			r.MatchString("x")
		}()
	}
}
