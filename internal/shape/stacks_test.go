package shape

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// stackWord finds a stack's name (or its Python package's, or a front end's: dynamo, flax) in a
// string literal. XLA alone is
// not one: it is the compiler under every stack, which recomp is about (its dumps, its flags).
var stackWord = regexp.MustCompile(`\b(JAX|[Jj]ax|jaxlib|TensorFlow|[Tt]ensorflow|TF|tf|Keras|keras|torch_xla|torch|PyTorch|PopTorch|poptorch|Poplar|poplar|PopLibs|poplibs|PopART|popart|IPU|ipu|Graphcore|Neuron|neuron|dynamo|flax)\b`)

// stackNamed lists the files outside frameworks/ that may still name a stack, with how many
// string literals (and uses of logscan's Producer constants) that name one each holds, and why.
// A new one fails the test: put the knowledge in the stack's unit (frameworks/NAME, through
// framework.Framework) and let the package ask package frameworks. A count that drops must be
// lowered, so that the list only shrinks.
var stackNamed = map[string]struct {
	n   int
	why string
}{
	// logscan sits below the units (they are built of its types): it reads the line formats
	// (absl/glog headers naming a TF source file, Poplar's component prefixes) and names the
	// producer of each line, which the units then claim.
	"logscan/event.go":  {11, "the Producer constants: the names of the programs that print the lines the units read"},
	"logscan/record.go": {6, "a line's producer from its header: a TF source path, Poplar's and PopART's component names"},
	// A benchmark input, not knowledge recomp acts on.
	"logscan/synthetic.go": {5, "the generated TF-IPU/Poplar log of the benchmarks and stress tests"},
	// The commands' help and the package's summary tell a person which stacks recomp reads.
	"cmd/recomp/cache_cmd.go": {1, "help: the stacks' cache-folder options by their own names"},
	"cmd/recomp/ranks_cmd.go": {1, "help: where a rank comes from, JAX's process index among them"},
	"cmd/recomp/run_cmd.go":   {1, "help: what the probe records, by the stacks' own words"},
	"cmd/recomp-dist/main.go": {1, "the release's summary"},
	// The benchmark harness runs each stack's real environment and writes their log formats.
	"cmd/recomp-bench/main.go":     {2, "help: which stacks and log shapes it measures"},
	"cmd/recomp-bench/overhead.go": {7, "the real stacks' environments and loop scripts it times"},
	"cmd/recomp-bench/shapes.go":   {4, "the Poplar and TF log lines of its generated logs"},
	"cmd/recomp-bench/bounds.go":   {7, "the inputs of its bounded runs: TF's retracing warnings, a Keras-on-JAX run folder"},
	"cmd/recomp-bench/pytest.go":   {2, "the JAX suite whose pytest --recomp cost it times, and its venvs"},
}

// TestNoStackNamedOutsideUnits fails on a stack's name in a string literal, or a use of one of
// logscan's stack producers, outside frameworks/ (and logscan/'s own), but for stackNamed.
func TestNoStackNamedOutsideUnits(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string][]string{}
	err = eachGoFile(root, false, parser.SkipObjectResolution, func(pkg, file string, f *ast.File) {
		if pkg == "frameworks" || strings.HasPrefix(pkg, "frameworks/") {
			return
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if n.Kind == token.STRING && stackWord.MatchString(n.Value) {
					found[file] = append(found[file], n.Value)
				}
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && x.Name == "logscan" && strings.HasPrefix(n.Sel.Name, "Producer") &&
					n.Sel.Name != "Producer" && n.Sel.Name != "ProducerDynamo" {
					found[file] = append(found[file], "logscan."+n.Sel.Name)
				}
			}
			return true
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range sortedKeys(found) {
		hits, allowed := found[file], stackNamed[file]
		switch {
		case len(hits) > allowed.n:
			t.Errorf("%s names a stack %d times (%d allowed): its knowledge belongs in the stack's unit under frameworks/:\n\t%s",
				file, len(hits), allowed.n, strings.Join(hits, "\n\t"))
		case len(hits) < allowed.n:
			t.Errorf("%s names a stack %d times, stackNamed allows %d: lower it", file, len(hits), allowed.n)
		}
	}
	for file, allowed := range stackNamed {
		if len(found[file]) == 0 {
			t.Errorf("stackNamed lists %s (%s), which names no stack any more: remove it", file, allowed.why)
		}
	}
	if !slices.Contains(sortedKeys(found), "logscan/event.go") {
		t.Error("no stack found in logscan/event.go: the search is broken")
	}
}

// stackWording finds a stack's own wording in a string literal: the phrases of its explanations
// that a unit reads into facts (JAX's tracing-cache-miss explanation, its logged signatures). A
// package that matched them would parse a stack's words outside its unit.
var stackWording = regexp.MustCompile(`TRACING CACHE MISS|never seen function|weak_type=|different input pytree|with pytree metadata|` +
	`pytree node metadata|explanation unavailable|being re-defined|seen another function defined|ShapedArray|previously seen cache keys|` +
	`but now given|Static\\?\(value|different input types|closest seen input|size mismatch at|Recompiling function|GLOBAL_STATE changed|recompile_limit|cache_size_limit`)

// stackWorded lists the files outside frameworks/ that still hold a stack's wording, with how many
// string literals each, and why. A new one fails the test: let the stack's unit read its words
// into facts (framework.Framework.Facts) and take the facts. A count that drops must be lowered.
var stackWorded = map[string]struct {
	n   int
	why string
}{
	"explain/signature.go": {1, "JAX's logged signature (ShapedArray) read for the variants a log tells apart without a dump"},
	// Generated inputs, not knowledge recomp acts on.
	"internal/dumptest/dumptest.go": {1, "the JAX compile line of the tests' generated logs"},
	"cmd/recomp-bench/ranks.go":     {4, "the JAX log lines of the benchmark's generated ranks"},
	"cmd/recomp-bench/bounds.go":    {1, "the JAX compile line of the bounded runs' generated logs"},
}

// TestNoStackWordingOutsideUnits fails on a stack's wording in a string literal outside frameworks/
// (and logscan/, which the units are built of), but for stackWorded: verdict, report, ledger and
// the commands take a unit's facts, never its words.
func TestNoStackWordingOutsideUnits(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string][]string{}
	err = eachGoFile(root, false, parser.SkipObjectResolution, func(pkg, file string, f *ast.File) {
		if pkg == "frameworks" || strings.HasPrefix(pkg, "frameworks/") || pkg == "logscan" {
			return
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if n, ok := n.(*ast.BasicLit); ok && n.Kind == token.STRING && stackWording.MatchString(n.Value) {
				found[file] = append(found[file], n.Value)
			}
			return true
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range sortedKeys(found) {
		hits, allowed := found[file], stackWorded[file]
		switch {
		case len(hits) > allowed.n:
			t.Errorf("%s holds a stack's wording %d times (%d allowed): let the stack's unit read it into facts:\n\t%s",
				file, len(hits), allowed.n, strings.Join(hits, "\n\t"))
		case len(hits) < allowed.n:
			t.Errorf("%s holds a stack's wording %d times, stackWorded allows %d: lower it", file, len(hits), allowed.n)
		}
	}
	for file, allowed := range stackWorded {
		if len(found[file]) == 0 {
			t.Errorf("stackWorded lists %s (%s), which holds none any more: remove it", file, allowed.why)
		}
	}
	if len(found) == 0 {
		t.Error("no stack's wording found anywhere: the search is broken")
	}
}
