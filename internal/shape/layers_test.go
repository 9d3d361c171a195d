package shape

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/recomp/recomp/"

// layerOrder lists the module's packages from the top down: a package may import only
// packages of a later (lower) row. Packages of one row do not import each other.
var layerOrder = [][]string{
	{"cmd/recomp", "cmd/recomp-bench", "cmd/recomp-dist"},
	{"internal/helptext"},
	{"report"},
	{"across", "live"},
	{"explain"},
	{"gate"},
	{"verdict"},
	{"internal/dumptest"},
	{"padding", "diff"},
	{"ledger", "cache"},
	{"runner"},
	{"internal/input"},
	{"runfolder"},
	{"internal/scantest"},
	{"frameworks"},
	{"frameworks/ipu", "frameworks/jax", "frameworks/keras", "frameworks/neuron", "frameworks/tf", "frameworks/torchxla", "frameworks/wrappers", "frameworks/xla"},
	{"frameworks/torch"},
	{"frameworks/framework", "frameworks/internal/python"},
	{"frameworks/cause"},
	{"hlo", "logscan"},
	{"internal/follow"},
	{"internal/atomicfile", "internal/corpus", "internal/dist", "internal/gctune", "internal/golden", "internal/jsonschema", "internal/lazyre", "internal/livetest", "internal/openfile", "internal/option", "internal/terminal", "internal/textutil", "internal/version", "internal/shape", "python"},
	{"internal/skipped"},
}

// allowed is every import edge between the module's packages (non-test files), by importing
// package. A new edge fails TestLayers until it is written here.
var allowed = map[string][]string{
	"cmd/recomp":                 {"across", "cache", "diff", "explain", "frameworks", "gate", "hlo", "internal/gctune", "internal/helptext", "internal/input", "internal/option", "internal/terminal", "internal/textutil", "internal/version", "ledger", "live", "report", "runfolder", "runner"},
	"cmd/recomp-bench":           {"explain", "frameworks", "hlo", "internal/dist", "ledger", "logscan", "python", "report", "runner"},
	"cmd/recomp-dist":            {"internal/dist", "internal/version", "python", "runner"},
	"internal/helptext":          {"frameworks", "report"},
	"report":                     {"across", "cache", "diff", "explain", "gate", "hlo", "internal/atomicfile", "internal/lazyre", "internal/option", "internal/textutil", "ledger", "live", "logscan", "verdict"},
	"live":                       {"explain", "frameworks", "gate", "internal/follow", "internal/option", "internal/terminal", "internal/textutil", "ledger", "runfolder", "runner", "verdict"},
	"across":                     {"diff", "explain", "frameworks", "frameworks/framework", "gate", "internal/input", "internal/option", "ledger", "runfolder"},
	"explain":                    {"diff", "frameworks", "frameworks/framework", "gate", "internal/input", "internal/lazyre", "internal/openfile", "internal/option", "ledger", "logscan", "runfolder", "verdict"},
	"gate":                       {"frameworks", "internal/atomicfile", "internal/input", "internal/openfile", "ledger"},
	"internal/dumptest":          {"diff"},
	"verdict":                    {"diff", "frameworks", "frameworks/cause", "frameworks/framework", "internal/lazyre", "internal/textutil", "ledger", "padding", "runfolder"},
	"padding":                    {},
	"diff":                       {"frameworks", "frameworks/cause", "hlo", "internal/input", "internal/lazyre", "internal/openfile", "internal/textutil", "runfolder"},
	"ledger":                     {"frameworks", "frameworks/cause", "frameworks/framework", "internal/input", "internal/lazyre", "internal/option", "internal/textutil", "logscan"},
	"cache":                      {"frameworks", "frameworks/framework", "internal/input", "logscan"},
	"runner":                     {"frameworks", "frameworks/framework", "internal/lazyre", "internal/openfile", "runfolder"},
	"internal/input":             {"internal/openfile", "runfolder"},
	"runfolder":                  {"internal/atomicfile", "internal/lazyre", "internal/openfile"},
	"internal/scantest":          {"frameworks", "logscan"},
	"frameworks":                 {"frameworks/cause", "frameworks/framework", "frameworks/internal/python", "frameworks/ipu", "frameworks/jax", "frameworks/keras", "frameworks/neuron", "frameworks/tf", "frameworks/torch", "frameworks/torchxla", "frameworks/wrappers", "frameworks/xla", "hlo", "logscan"},
	"frameworks/ipu":             {"frameworks/framework", "internal/lazyre", "logscan"},
	"frameworks/jax":             {"frameworks/cause", "frameworks/framework", "frameworks/internal/python", "hlo", "internal/lazyre", "internal/openfile", "logscan"},
	"frameworks/keras":           {"frameworks/cause", "frameworks/framework", "logscan"},
	"frameworks/neuron":          {"frameworks/framework", "internal/lazyre", "logscan"},
	"frameworks/tf":              {"frameworks/cause", "frameworks/framework", "frameworks/internal/python", "hlo", "internal/lazyre", "logscan"},
	"frameworks/torch":           {"frameworks/cause", "frameworks/framework", "frameworks/internal/python", "internal/lazyre", "logscan"},
	"frameworks/torchxla":        {"frameworks/cause", "frameworks/framework", "frameworks/internal/python", "frameworks/torch", "hlo", "internal/lazyre", "logscan"},
	"frameworks/wrappers":        {"frameworks/framework", "internal/lazyre", "logscan"},
	"frameworks/xla":             {"frameworks/framework", "internal/lazyre", "logscan"},
	"frameworks/framework":       {"frameworks/cause", "hlo", "internal/lazyre", "logscan"},
	"frameworks/internal/python": {},
	"frameworks/cause":           {},
	"hlo":                        {},
	"logscan":                    {"internal/lazyre", "internal/textutil"},
	"internal/atomicfile":        {},
	"internal/corpus":            {"internal/skipped"},
	"internal/dist":              {},
	"internal/follow":            {"internal/openfile", "internal/textutil"},
	"internal/gctune":            {},
	"internal/golden":            {},
	"internal/jsonschema":        {},
	"internal/lazyre":            {},
	"internal/livetest":          {},
	"internal/openfile":          {},
	"internal/option":            {},
	"internal/terminal":          {},
	"internal/textutil":          {},
	"internal/version":           {},
	"python":                     {},
	"internal/shape":             {},
	"internal/skipped":           {},
}

// never lists edges that must not be added, each with why: a statement of policy, as go/build's
// deps_test.go keeps its negative rules. They should almost never be removed.
var never = map[[2]string]string{
	{"report", "frameworks"}:           "report lays out the verdict's sentences and composes none: a stack's words reach a report only through verdict, so that the live line and every format say the same",
	{"report", "frameworks/framework"}: "as report -> frameworks",
	{"report", "frameworks/cause"}:     "as report -> frameworks",
}

// upward lists the allowed edges that still point up, each with why it is still there. They
// are to be removed, not added to.
var upward = map[[2]string]string{}

// TestLayers fails on an import between the module's packages that allowed does not list, on
// a package missing from the tables, and on an allowed edge that does not point down.
func TestLayers(t *testing.T) {
	rank := map[string]int{}
	for i, row := range layerOrder {
		for _, p := range row {
			if _, dup := rank[p]; dup {
				t.Errorf("layerOrder lists %s twice", p)
			}
			rank[p] = i
		}
	}
	for from, tos := range allowed {
		if _, ok := rank[from]; !ok {
			t.Errorf("allowed lists %s, which layerOrder does not place", from)
		}
		for _, to := range tos {
			if _, ok := rank[to]; !ok {
				t.Errorf("allowed edge %s -> %s: layerOrder does not place %s", from, to, to)
				continue
			}
			why, exception := upward[[2]string{from, to}]
			switch {
			case rank[to] <= rank[from] && !exception:
				t.Errorf("allowed edge %s -> %s points up (or sideways): %s is not below %s in layerOrder", from, to, to, from)
			case rank[to] > rank[from] && exception:
				t.Errorf("upward lists %s -> %s (%s), which points down: remove it from upward", from, to, why)
			}
		}
	}
	for e, why := range never {
		if slices.Contains(allowed[e[0]], e[1]) {
			t.Errorf("allowed lists %s -> %s, which never forbids: %s", e[0], e[1], why)
		}
	}
	for e := range upward {
		if !slices.Contains(allowed[e[0]], e[1]) {
			t.Errorf("upward lists %s -> %s, an edge allowed does not have: remove it", e[0], e[1])
		}
	}

	imports := moduleImports(t)
	for _, pkg := range sortedKeys(imports) {
		if _, ok := allowed[pkg]; !ok {
			t.Errorf("package %s is not in the layering tables: add it to layerOrder and allowed in %s", pkg, "internal/shape/layers_test.go")
			continue
		}
		for _, to := range imports[pkg] {
			if !slices.Contains(allowed[pkg], to) {
				t.Errorf("%s imports %s, an edge the layering does not allow (internal/shape/layers_test.go)", pkg, to)
			}
		}
	}
	for _, pkg := range sortedKeys(allowed) {
		for _, to := range allowed[pkg] {
			if !slices.Contains(imports[pkg], to) {
				t.Logf("allowed edge %s -> %s is no longer used: it can go", pkg, to)
			}
		}
	}
}

// moduleImports parses the imports of every non-test Go file in the module (every build tag:
// the union) and returns, for each package (its path inside the module), the module's packages
// it imports, sorted.
func moduleImports(t *testing.T) map[string][]string {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module root: %v", err)
	}
	out := map[string][]string{}
	err = eachGoFile(root, false, parser.ImportsOnly, func(pkg, _ string, f *ast.File) {
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil || !strings.HasPrefix(p, module) {
				continue
			}
			p = strings.TrimPrefix(p, module)
			if !slices.Contains(out[pkg], p) {
				out[pkg] = append(out[pkg], p)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range out {
		slices.Sort(v)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// eachGoFile parses every non-test Go file below root (testdata, hidden and _ folders left out,
// and cmd/ too with skipCmd) with mode, and gives fn each one with its package's path inside
// the module and its own.
func eachGoFile(root string, skipCmd bool, mode parser.Mode, fn func(pkg, file string, f *ast.File)) error {
	fset := token.NewFileSet()
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || skipCmd && name == "cmd" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, mode)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		fn(filepath.ToSlash(rel), filepath.ToSlash(filepath.Join(rel, name)), f)
		return nil
	})
}
