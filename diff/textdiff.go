package diff

import (
	"fmt"
	"strings"

	"github.com/recomp/recomp/hlo"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// TextOptions bound a text diff. Zero values take the defaults.
type TextOptions struct {
	// MaxComputations is how many changed computations are shown (default 5).
	MaxComputations int
	// MaxLines: computations of at most this many instructions a side get go-diff's line
	// diff (default 2000); larger ones are aligned by the structural matching, which is
	// linear, so a 100 000-instruction pair costs about what the comparison did.
	MaxLines int
	// MaxOutput is how many diff lines are written in all (default 2000).
	MaxOutput int
}

// TextDiff is a unified line diff of the computations of a pair that changed. Instructions
// are printed in the canonical form of hlo.Print without metadata, and A's names are replaced
// by the names of their matched counterparts in B, so that only what changed shows.
type TextDiff struct {
	Text  string     // the unified diff
	Lines []DiffLine // the same, line by line, for renderers that lay it out themselves
	Notes []string   // what was left out or aligned without go-diff
}

// DiffLine is one line of a text diff. Op is ' ' (the same in A and B), '-' (only in A), '+'
// (only in B), '@' (Text says how many unchanged lines were left out) or 'c' (Text names the
// computations of A and B that follow, "A → B").
type DiffLine struct {
	Op   byte
	Text string
}

// item is one line of a diff: ' ' the same on both sides, '-' only in A, '+' only in B.
type item struct {
	op   byte
	a, b int
}

type compDiff struct {
	p            CompPair
	nameA, nameB func(i int) string // the canonical line of an instruction
	items        []item
}

// Text renders the text diff of r.
func (r *Result) Text(opt TextOptions) TextDiff {
	if opt.MaxComputations <= 0 {
		opt.MaxComputations = 5
	}
	if opt.MaxLines <= 0 {
		opt.MaxLines = 2000
	}
	if opt.MaxOutput <= 0 {
		opt.MaxOutput = 2000
	}
	var td TextDiff
	if r.Identical {
		return td
	}
	ren := newRenamer(r)
	shown, changed := 0, 0
	for _, p := range r.Computations {
		cd := ren.diffComputation(p, opt.MaxLines)
		if cd == nil {
			continue
		}
		changed++
		if shown == opt.MaxComputations || len(td.Lines) >= opt.MaxOutput {
			continue
		}
		shown++
		if len(p.A.Instructions) > opt.MaxLines || len(p.B.Instructions) > opt.MaxLines {
			td.Notes = append(td.Notes, fmt.Sprintf("%s has %d/%d instructions: aligned by the structural matching, not by a line diff",
				p.B.Name, len(p.A.Instructions), len(p.B.Instructions)))
		}
		td.Lines = append(td.Lines, DiffLine{Op: 'c', Text: p.A.Name + " → " + p.B.Name})
		td.Lines = cd.render(td.Lines, opt.MaxOutput-len(td.Lines))
	}
	if len(td.Lines) >= opt.MaxOutput {
		td.Notes = append(td.Notes, fmt.Sprintf("text diff cut after %d lines", opt.MaxOutput))
	}
	if changed > shown {
		td.Notes = append(td.Notes, fmt.Sprintf("%d more changed computation(s) not shown", changed-shown))
	}
	var b strings.Builder
	for _, l := range td.Lines {
		switch l.Op {
		case 'c':
			from, to, _ := strings.Cut(l.Text, " → ")
			fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", from, to)
		case '@':
			fmt.Fprintf(&b, "@@ %s @@\n", l.Text)
		default:
			b.WriteByte(l.Op)
			b.WriteString(l.Text)
			b.WriteByte('\n')
		}
	}
	td.Text = b.String()
	return td
}

// renamer prints A's instructions under the names of their counterparts in B.
type renamer struct {
	comps map[string]string // computation names A → B
	instr map[*hlo.Computation]map[string]string
}

func newRenamer(r *Result) *renamer {
	ren := &renamer{comps: map[string]string{}, instr: map[*hlo.Computation]map[string]string{}}
	for _, p := range r.Computations {
		ren.comps[p.A.Name] = p.B.Name
		names := make(map[string]string, len(p.B.Instructions))
		for j, i := range p.MatchB {
			if i >= 0 {
				names[p.A.Instructions[i].Name] = p.B.Instructions[j].Name
			}
		}
		ren.instr[p.A] = names
	}
	return ren
}

// line prints an instruction without metadata; rename maps A's names to B's (nil for B).
func (ren *renamer) line(in *hlo.Instruction, names map[string]string) string {
	c := *in
	c.Literal = shownLiteral(in.Literal) // a huge constant is one summary line, with its digest
	c.Attrs = make([]hlo.Attr, 0, len(in.Attrs))
	for _, a := range in.Attrs {
		if a.Name == "metadata" {
			continue
		}
		if names != nil && hlo.IsCallAttr(a.Name) {
			a.Value = ren.renameComps(a.Value)
		}
		c.Attrs = append(c.Attrs, a)
	}
	if names != nil {
		if n, ok := names[c.Name]; ok {
			c.Name = n
		}
		ops := make([]string, len(in.Operands))
		for k, op := range in.Operands {
			if n, ok := names[op]; ok {
				op = n
			}
			ops[k] = op
		}
		c.Operands = ops
	}
	return hlo.InstructionString(&c)
}

func (ren *renamer) renameComps(v string) string {
	braces := strings.HasPrefix(v, "{")
	names := strings.Split(strings.Trim(v, "{}"), ",")
	for k, n := range names {
		n = strings.TrimPrefix(strings.TrimSpace(n), "%")
		if to, ok := ren.comps[n]; ok {
			n = to
		}
		names[k] = n
	}
	out := strings.Join(names, ", ")
	if braces {
		out = "{" + out + "}"
	}
	return out
}

// diffComputation returns the diff of one computation pair, or nil when nothing differs.
func (ren *renamer) diffComputation(p CompPair, maxLines int) *compDiff {
	names := ren.instr[p.A]
	cacheA, cacheB := map[int]string{}, map[int]string{}
	lineA := func(i int) string {
		if s, ok := cacheA[i]; ok {
			return s
		}
		s := ren.line(p.A.Instructions[i], names)
		cacheA[i] = s
		return s
	}
	lineB := func(j int) string {
		if s, ok := cacheB[j]; ok {
			return s
		}
		s := ren.line(p.B.Instructions[j], nil)
		cacheB[j] = s
		return s
	}
	cd := &compDiff{p: p, nameA: lineA, nameB: lineB}
	if len(p.A.Instructions) <= maxLines && len(p.B.Instructions) <= maxLines {
		cd.items = lineDiff(p, lineA, lineB)
	} else {
		cd.items = alignedDiff(p, func(x, y *hlo.Instruction) bool { return ren.sameLine(x, y, names) })
	}
	for _, it := range cd.items {
		if it.op != ' ' {
			return cd
		}
	}
	return nil
}

// lineDiff diffs the canonical lines with go-diff (line mode: each line is one symbol).
func lineDiff(p CompPair, lineA, lineB func(int) string) []item {
	var ta, tb strings.Builder
	for i := range p.A.Instructions {
		ta.WriteString(lineA(i))
		ta.WriteByte('\n')
	}
	for j := range p.B.Instructions {
		tb.WriteString(lineB(j))
		tb.WriteByte('\n')
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0
	a, b, lines := dmp.DiffLinesToChars(ta.String(), tb.String())
	var items []item
	i, j := 0, 0
	for _, d := range dmp.DiffCharsToLines(dmp.DiffMain(a, b, false), lines) {
		n := strings.Count(d.Text, "\n")
		for range n {
			switch d.Type {
			case diffmatchpatch.DiffEqual:
				items = append(items, item{' ', i, j})
				i, j = i+1, j+1
			case diffmatchpatch.DiffDelete:
				items = append(items, item{'-', i, -1})
				i++
			case diffmatchpatch.DiffInsert:
				items = append(items, item{'+', -1, j})
				j++
			}
		}
	}
	return items
}

// alignedDiff walks B in order and places each instruction against its structural match in
// A: equal lines are context, differing ones a '-'/'+' pair; A's unmatched instructions are
// removals placed before the next matched instruction that follows them in A. Linear.
func alignedDiff(p CompPair, same func(x, y *hlo.Instruction) bool) []item {
	matchedA := make([]bool, len(p.A.Instructions))
	for _, i := range p.MatchB {
		if i >= 0 {
			matchedA[i] = true
		}
	}
	var items []item
	next := 0 // A's instructions before next have been placed
	flush := func(upTo int) {
		for ; next < upTo && next < len(matchedA); next++ {
			if !matchedA[next] {
				items = append(items, item{'-', next, -1})
			}
		}
	}
	for j, i := range p.MatchB {
		if i < 0 {
			items = append(items, item{'+', -1, j})
			continue
		}
		flush(i)
		if i >= next {
			next = i + 1
		}
		if same(p.A.Instructions[i], p.B.Instructions[j]) {
			items = append(items, item{' ', i, j})
		} else {
			items = append(items, item{'-', i, -1}, item{'+', -1, j})
		}
	}
	flush(len(matchedA))
	return items
}

// render appends the items as diff lines with three lines of context around each change, at
// most limit lines.
func (cd *compDiff) render(out []DiffLine, limit int) []DiffLine {
	const ctx = 3
	text := func(it item) string {
		if it.op == '+' || it.op == ' ' && it.b >= 0 {
			return cd.nameB(it.b)
		}
		return cd.nameA(it.a)
	}
	near := make([]bool, len(cd.items))
	for k, it := range cd.items {
		if it.op == ' ' {
			continue
		}
		for x := max(0, k-ctx); x <= min(len(cd.items)-1, k+ctx); x++ {
			near[x] = true
		}
	}
	written, skipped := 0, 0
	for k, it := range cd.items {
		if written >= limit {
			break
		}
		if !near[k] {
			skipped++
			continue
		}
		if skipped > 0 {
			out = append(out, DiffLine{Op: '@', Text: fmt.Sprintf("%d unchanged lines", skipped)})
			written++
			skipped = 0
		}
		out = append(out, DiffLine{Op: it.op, Text: text(it)})
		written++
	}
	return out
}

// sameLine reports whether A's instruction x prints as B's y under the renaming, without
// printing either: opcode, shape, literal, operands and attributes other than metadata.
func (ren *renamer) sameLine(x, y *hlo.Instruction, names map[string]string) bool {
	if x.Opcode != y.Opcode || x.Param != y.Param || x.Root != y.Root || x.Literal != y.Literal ||
		!sameShape(x.Shape, y.Shape) || len(x.Operands) != len(y.Operands) || rename(names, x.Name) != y.Name {
		return false
	}
	for k, op := range x.Operands {
		if rename(names, op) != y.Operands[k] {
			return false
		}
	}
	ax, ay := withoutMetadata(x.Attrs), withoutMetadata(y.Attrs)
	if len(ax) != len(ay) {
		return false
	}
	for k, a := range ax {
		v := a.Value
		if hlo.IsCallAttr(a.Name) {
			v = ren.renameComps(v)
			if ay[k].Name != a.Name || v != ren.renameComps(ay[k].Value) {
				return false
			}
			continue
		}
		if ay[k].Name != a.Name || ay[k].Value != v {
			return false
		}
	}
	return true
}

func rename(names map[string]string, n string) string {
	if to, ok := names[n]; ok {
		return to
	}
	return n
}

func withoutMetadata(attrs []hlo.Attr) []hlo.Attr {
	for k, a := range attrs {
		if a.Name == "metadata" {
			out := append(append([]hlo.Attr(nil), attrs[:k]...), attrs[k+1:]...)
			return withoutMetadata(out)
		}
	}
	return attrs
}

func sameShape(a, b hlo.Shape) bool {
	if a.IsTuple != b.IsTuple || a.Elem != b.Elem || a.Layout != b.Layout || a.HasLayout != b.HasLayout ||
		!a.SameDims(b) || len(a.Tuple) != len(b.Tuple) {
		return false
	}
	for k := range a.Tuple {
		if !sameShape(a.Tuple[k], b.Tuple[k]) {
			return false
		}
	}
	return true
}
