package diff

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/hlo"
)

// The net under every change to the causes: real modules from the example runs, each mutated in
// one known way, must be explained by that mutation's cause first (and a renaming of
// everything by none at all).

// realModules parses the before-optimisation modules of the example runs (every framework and
// version), the largest of each family.
func realModules(tb testing.TB) []*hlo.Module {
	tb.Helper()
	files, _ := filepath.Glob("../testdata/runs/*/*/dump/*.txt")
	if len(files) < 100 {
		tb.Fatalf("only %d example modules", len(files))
	}
	best := map[string]*hlo.Module{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		m, err := hlo.Parse(f, src)
		if err != nil {
			tb.Fatal(err)
		}
		k := filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(f)))) + "/" + frameworks.Family(m.Name)
		if b := best[k]; b == nil || m.InstructionCount() > b.InstructionCount() {
			best[k] = m
		}
	}
	var keys []string
	for k := range best {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []*hlo.Module
	for _, k := range keys {
		out = append(out, best[k])
	}
	return out
}

// clone copies a module by printing and parsing it again.
func clone(tb testing.TB, m *hlo.Module) *hlo.Module {
	var b bytes.Buffer
	if err := hlo.Print(&b, m); err != nil {
		tb.Fatal(err)
	}
	c, err := hlo.Parse(m.File+" (copy)", b.Bytes())
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func entryParams(m *hlo.Module) []*hlo.Instruction {
	var ps []*hlo.Instruction
	for _, in := range m.Entry.Instructions {
		if in.Opcode == "parameter" && !in.Shape.IsTuple && in.Shape.Elem != "token" {
			ps = append(ps, in)
		}
	}
	return ps
}

// A mutation changes a module in place and says which cause must come first; false when it
// does not apply to the module.
type mutation struct {
	name  string
	cause CauseKind
	apply func(m *hlo.Module) bool
}

func setDims(in *hlo.Instruction, dims []int64) {
	in.Shape.Dims = dims
}

var mutations = []mutation{
	{"leading dimension of every input that has one", CauseBatchSize, func(m *hlo.Module) bool {
		// the batch: the most common leading dimension among the inputs
		count := map[int64]int{}
		for _, p := range entryParams(m) {
			if len(p.Shape.Dims) > 1 && p.Shape.Dims[0] > 1 {
				count[p.Shape.Dims[0]]++
			}
		}
		var batch int64
		for d, n := range count {
			if n > count[batch] || n == count[batch] && d > batch {
				batch = d
			}
		}
		if batch == 0 {
			return false
		}
		for _, p := range entryParams(m) {
			if len(p.Shape.Dims) > 1 && p.Shape.Dims[0] == batch {
				setDims(p, append([]int64{batch + 8}, p.Shape.Dims[1:]...))
			}
		}
		return true
	}},
	{"another dimension of one input", CauseInputShape, func(m *hlo.Module) bool {
		for _, p := range entryParams(m) {
			if len(p.Shape.Dims) >= 2 && p.Shape.Dims[1] > 1 {
				d := append([]int64(nil), p.Shape.Dims...)
				d[1] += 3
				setDims(p, d)
				return true
			}
		}
		return false
	}},
	{"element type of one input", CauseDtype, func(m *hlo.Module) bool {
		for _, p := range entryParams(m) {
			if p.Shape.Elem == "f32" {
				p.Shape.Elem = "bf16"
				return true
			}
		}
		return false
	}},
	{"a scalar constant", CauseConstant, func(m *hlo.Module) bool {
		for _, c := range m.Computations {
			for _, in := range c.Instructions {
				if in.Opcode == "constant" && len(in.Shape.Dims) == 0 && !in.Shape.IsTuple && strings.HasPrefix(in.Shape.Elem, "f") {
					if v, err := strconv.ParseFloat(in.Literal, 64); err == nil && v != 0 && v != 1 {
						in.Literal = strconv.FormatFloat(v*3.5, 'g', -1, 64)
						return true
					}
				}
			}
		}
		return false
	}},
	{"the sharding of one input", CauseSharding, func(m *hlo.Module) bool {
		ps := entryParams(m)
		if len(ps) == 0 {
			return false
		}
		attrs := []hlo.Attr{{Name: "sharding", Value: "{devices=[2,1]0,1 recomp_test}"}}
		for _, a := range ps[0].Attrs {
			if a.Name != "sharding" {
				attrs = append(attrs, a)
			}
		}
		ps[0].Attrs = attrs
		return true
	}},
	{"the layout of one input", CauseLayout, func(m *hlo.Module) bool {
		for _, p := range entryParams(m) {
			if len(p.Shape.Dims) == 2 && p.Shape.HasLayout && p.Shape.Layout == "1,0" && p.Shape.Dims[0] != p.Shape.Dims[1] {
				p.Shape.Layout = "0,1"
				return true
			}
		}
		return false
	}},
	{"an op added", CauseGraphStructure, func(m *hlo.Module) bool {
		ps := entryParams(m)
		if len(ps) == 0 {
			return false
		}
		in := &hlo.Instruction{Name: "recomp_added.1", Opcode: "sine", Shape: ps[0].Shape, Operands: []string{ps[0].Name}, Param: -1}
		m.Entry.Instructions = append([]*hlo.Instruction{in}, m.Entry.Instructions...)
		return true
	}},
	{"a module setting", CauseModuleConfig, func(m *hlo.Module) bool {
		m.Attrs = append(append([]hlo.Attr(nil), m.Attrs...), hlo.Attr{Name: "num_replicas_for_recomp_test", Value: "2"})
		return true
	}},
	{"every name", CauseIdentical, func(m *hlo.Module) bool {
		rename := map[string]string{}
		for ci, c := range m.Computations {
			rename[c.Name] = fmt.Sprintf("comp_%d.%d", ci, 7)
			for ii, in := range c.Instructions {
				rename[in.Name] = fmt.Sprintf("v%d_%d.%d", ci, ii, 3)
			}
		}
		var b bytes.Buffer
		hlo.Print(&b, m)
		// replace whole name tokens (letters, digits, '_', '.', '-') wherever they stand
		src, out := b.String(), strings.Builder{}
		isName := func(c byte) bool {
			return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
		}
		for i := 0; i < len(src); {
			if !isName(src[i]) {
				out.WriteByte(src[i])
				i++
				continue
			}
			j := i
			for j < len(src) && isName(src[j]) {
				j++
			}
			if to, ok := rename[src[i:j]]; ok {
				out.WriteString(to)
			} else {
				out.WriteString(src[i:j])
			}
			i = j
		}
		text := out.String()
		r, err := hlo.Parse("renamed", []byte(text))
		if err != nil {
			return false
		}
		*m = *r
		return true
	}},
}

func TestMutationsNameTheirCause(t *testing.T) {
	mods := realModules(t)
	covered := map[CauseKind]int{}
	for _, mut := range mutations {
		for _, m := range mods {
			b := clone(t, m)
			if !mut.apply(b) {
				continue
			}
			r := Compare(clone(t, m), b)
			covered[mut.cause]++
			if len(r.Causes) == 0 || r.Causes[0].Kind != mut.cause {
				var got []CauseKind
				for _, c := range r.Causes {
					got = append(got, c.Kind)
				}
				t.Errorf("%s, %s: causes %v, want %s first", m.File, mut.name, got, mut.cause)
			}
		}
	}
	for _, mut := range mutations {
		if covered[mut.cause] < 5 {
			t.Errorf("mutation %q applied to only %d modules", mut.name, covered[mut.cause])
		}
	}
}

// FuzzDiff compares a real module with a random mutation of its text: no panic, and every
// comparison names at least one cause.
func FuzzDiff(f *testing.F) {
	mods := realModules(f)
	for i := range 4 {
		f.Add(uint16(i*17), []byte{3, 1, 4, 1, 5, 9, 2, 6})
	}
	f.Fuzz(func(t *testing.T, pick uint16, ops []byte) {
		m := mods[int(pick)%len(mods)]
		var b bytes.Buffer
		hlo.Print(&b, m)
		lines := strings.Split(b.String(), "\n")
		rng := rand.New(rand.NewSource(int64(len(ops))))
		for _, op := range ops {
			if len(lines) == 0 {
				return
			}
			i := rng.Intn(len(lines))
			switch op % 4 {
			case 0: // drop a line
				lines = append(lines[:i], lines[i+1:]...)
			case 1: // change a digit
				if l := []byte(lines[i]); len(l) > 0 {
					j := rng.Intn(len(l))
					if l[j] >= '0' && l[j] <= '9' {
						l[j] = '0' + (l[j]-'0'+op)%10
					}
					lines[i] = string(l)
				}
			case 2: // swap two lines
				j := rng.Intn(len(lines))
				lines[i], lines[j] = lines[j], lines[i]
			case 3: // change an element type
				lines[i] = strings.Replace(lines[i], "f32", "bf16", 1)
			}
		}
		mb, err := hlo.Parse("mutated", []byte(strings.Join(lines, "\n")))
		if err != nil {
			return // not a module any more: the parser's fuzzers cover that
		}
		r := Compare(m, mb)
		if len(r.Causes) == 0 {
			t.Fatalf("no cause for %s mutated by %v", m.File, ops)
		}
		r.Text(TextOptions{MaxOutput: 50})
	})
}
