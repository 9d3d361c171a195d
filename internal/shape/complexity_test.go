package shape

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxComplexity is the most a function's cyclomatic complexity may be.
const maxComplexity = 25

// complexityExceptions are the library functions allowed over maxComplexity ("pkg.Func" or
// "pkg.(Type).Method"), each with its reason. A function under the bound again must leave the
// list.
var complexityExceptions = map[string]string{
	// HLO's grammar, read as it is written (each says so at the function).
	"hlo.(parser).layoutGrammar": "the layout grammar's sections in order, one optional step each",
	"hlo.normalizeValue":         "a character-level scanner: one loop, a case per character class",
	"hlo.inferShape":             "a table of opcodes, one case per kind of operation",
	"hlo.(parser).operands":      "the grammar of an operand, step by step",
	"hlo.eachKeyValue":           "a character-level scanner: one loop, a case per character class",
	"hlo.(parser).denseLiteral":  "XLA's literal grammar: one loop, a case per token",
	"hlo.(parser).value":         "a character-level scanner: one loop, a case per character class",
}

// TestComplexity fails on a function of a library package or of cmd/recomp (test files left
// out; the harnesses cmd/recomp-bench and cmd/recomp-dist are not held to it)
// whose cyclomatic complexity, counted as gocyclo counts it, is over maxComplexity and which
// complexityExceptions does not list, and on an exception that is no longer over.
func TestComplexity(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	over := map[string]int{}
	err = eachGoFile(root, false, parser.SkipObjectResolution, func(pkg, _ string, f *ast.File) {
		if strings.HasPrefix(pkg, "cmd/") && pkg != "cmd/recomp" {
			return
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			if c := complexity(fn); c > maxComplexity {
				over[pkg+"."+funcName(fn)] = c
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range over {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if _, ok := complexityExceptions[n]; !ok {
			t.Errorf("%s: cyclomatic complexity %d, over %d: split it (or list it in complexityExceptions with the reason)", n, over[n], maxComplexity)
		}
	}
	for n := range complexityExceptions {
		if _, ok := over[n]; !ok {
			t.Errorf("complexityExceptions lists %s, which is not over %d (or is gone): remove it", n, maxComplexity)
		}
	}
}

// funcName is "Func" or "(Type).Method".
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	if s, ok := typ.(*ast.StarExpr); ok {
		typ = s.X
	}
	if ix, ok := typ.(*ast.IndexExpr); ok {
		typ = ix.X
	}
	if ix, ok := typ.(*ast.IndexListExpr); ok {
		typ = ix.X
	}
	return fmt.Sprintf("(%s).%s", typ, fn.Name.Name)
}

// complexity is gocyclo's cyclomatic complexity of a function: 1, plus one for each if, for,
// range, non-default case of a switch or select, && and ||. Function literals count towards
// the function they are in.
func complexity(fn *ast.FuncDecl) int {
	c := 1
	ast.Inspect(fn, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if n.List != nil {
				c++
			}
		case *ast.CommClause:
			if n.Comm != nil {
				c++
			}
		case *ast.BinaryExpr:
			if n.Op == token.LAND || n.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}
