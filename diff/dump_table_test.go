package diff

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/recomp/recomp/internal/golden"
)

// TestDumpTables runs the dump folders of testdata/dumps through LoadDump, Dumps and Explain
// and compares what they found, written as plain text, with each archive's want section
// (go test ./diff -run TestDumpTables -update rewrites them).
//
// An archive's files are extracted into a fresh folder: a name written as a Go string
// ("a/module_0001.x\x1b.txt") is unquoted, and a file whose name ends in .gz is written
// gzip-compressed. Its comment holds prose and the commands, one per line starting with "> ":
//
//	load PATH [stage=S] [hold=N] [max=N]
//	                             LoadDump(PATH) with LoadOptions{Stage, HoldBytes, MaxFileBytes};
//	                             the dump is kept for the commands after it
//	dumps A B [text] [maxtexts=N]
//	                             Dumps of the two dumps (loaded with the default options unless
//	                             loaded before) with Options{Text, MaxTexts}
//	explain DIR [key=name] [text] [maxtexts=N]
//	                             Explain of the dump, or ExplainBy keyed by the file's name
//	name BASE...                 ParseDumpName of each base name
//	mkdir DIR | rm PATH | symlink TARGET LINK | truncate PATH N
//	                             change the folder between commands
//
// The want section repeats each command after "> " and then what it found: a dump's stages,
// the number of files it ignored, each file it loaded (the module's own name only where the
// file's name does not say it, and whether the dump holds it parsed or reads it again), its
// problems and warnings; the pairs (how they were paired, and the kinds of their causes) and
// what stayed unpaired; each history's files and steps.
func TestDumpTables(t *testing.T) {
	files, err := filepath.Glob("testdata/dumps/*.txtar")
	if err != nil || len(files) < 10 {
		t.Fatalf("dump tables: %d files, %v", len(files), err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			root := t.TempDir()
			want := -1
			for i, f := range ar.Files {
				if f.Name == "want" {
					want = i
					continue
				}
				writeArchiveFile(t, root, f)
			}
			if want < 0 {
				t.Fatalf("%s has no want section", file)
			}
			got := runDumpScript(t, root, string(ar.Comment))
			if golden.Update() {
				ar.Files[want].Data = []byte(got)
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if w := string(ar.Files[want].Data); got != w {
				t.Errorf("%s: the want section differs (-update rewrites it)%s\nall of it:\n%s", file, golden.FirstDifference(got, w), got)
			}
		})
	}
}

// writeArchiveFile writes one file of an archive under root.
func writeArchiveFile(t *testing.T, root string, f txtar.File) {
	t.Helper()
	name := f.Name
	if strings.HasPrefix(name, `"`) {
		var err error
		if name, err = strconv.Unquote(name); err != nil {
			t.Fatalf("file name %s: %v", f.Name, err)
		}
	}
	path := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	data := f.Data
	if strings.HasSuffix(name, ".gz") {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(data)
		zw.Close()
		data = buf.Bytes()
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		if name != f.Name {
			t.Skipf("this file system refuses the name %s: %v", f.Name, err)
		}
		t.Fatal(err)
	}
}

// dumpScript is the state of one archive's commands.
type dumpScript struct {
	t     *testing.T
	root  string
	dumps map[string]*Dump
	out   strings.Builder
}

func runDumpScript(t *testing.T, root, comment string) string {
	s := &dumpScript{t: t, root: root, dumps: map[string]*Dump{}}
	n := 0
	for _, line := range strings.Split(comment, "\n") {
		cmd, ok := strings.CutPrefix(line, "> ")
		if !ok {
			continue
		}
		n++
		fmt.Fprintf(&s.out, "> %s\n", cmd)
		s.run(strings.Fields(cmd))
	}
	if n == 0 {
		t.Fatal("the archive's comment has no command")
	}
	return s.out.String()
}

func (s *dumpScript) printf(format string, args ...any) {
	fmt.Fprintf(&s.out, format, args...)
}

// path is a path of the archive's folder on disk.
func (s *dumpScript) path(p string) string {
	return filepath.Join(s.root, filepath.FromSlash(p))
}

// rel writes a path of the folder as the archive names it.
func (s *dumpScript) rel(p string) string {
	if r, err := filepath.Rel(s.root, p); err == nil && !strings.HasPrefix(r, "..") {
		p = filepath.ToSlash(r)
	}
	return show(p)
}

// clean writes a message with the folder's paths as the archive names them.
func (s *dumpScript) clean(msg string) string {
	return strings.ReplaceAll(strings.ReplaceAll(msg, s.root+string(filepath.Separator), ""), s.root, ".")
}

// show quotes a value that is empty or holds spaces, control characters or invalid UTF-8.
func show(v string) string {
	if v == "" || strings.ContainsFunc(v, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) || r == unicode.ReplacementChar }) {
		return strconv.Quote(v)
	}
	return v
}

// printable quotes a message that holds control characters or invalid UTF-8.
func printable(msg string) string {
	if strings.ContainsFunc(msg, func(r rune) bool { return unicode.IsControl(r) || r == unicode.ReplacementChar }) {
		return strconv.Quote(msg)
	}
	return msg
}

// options splits a command's arguments into positional ones and key=value options.
func options(args []string) (pos []string, opt map[string]string) {
	opt = map[string]string{}
	for _, a := range args {
		if k, v, ok := strings.Cut(a, "="); ok {
			opt[k] = v
		} else if a == "text" {
			opt[a] = "true"
		} else {
			pos = append(pos, a)
		}
	}
	return pos, opt
}

func (s *dumpScript) atoi(v string) int {
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		s.t.Fatalf("not a number: %q", v)
	}
	return n
}

func (s *dumpScript) run(args []string) {
	t := s.t
	if len(args) == 0 {
		t.Fatal("an empty command")
	}
	pos, opt := options(args[1:])
	need := func(n int) {
		if len(pos) != n {
			t.Fatalf("%s takes %d arguments: %q", args[0], n, args)
		}
	}
	compare := Options{Text: opt["text"] == "true", MaxTexts: s.atoi(opt["maxtexts"])}
	switch args[0] {
	case "load":
		need(1)
		d, err := LoadDump(s.path(pos[0]), LoadOptions{Stage: opt["stage"], HoldBytes: int64(s.atoi(opt["hold"])),
			MaxFileBytes: int64(s.atoi(opt["max"]))})
		if err != nil {
			s.printf("error: %s\n", s.clean(err.Error()))
			delete(s.dumps, pos[0])
			return
		}
		s.dumps[pos[0]] = d
		s.writeDump(d)
	case "dumps":
		need(2)
		a, b := s.dump(pos[0]), s.dump(pos[1])
		if a == nil || b == nil {
			return
		}
		pa, pb := len(a.Problems), len(b.Problems)
		dd := Dumps(a, b, compare)
		for _, p := range dd.Pairs {
			s.printf("%-11s %s ↔ %s: %s\n", p.PairedBy, s.rel(p.A.Path), s.rel(p.B.Path), s.result(p))
		}
		for _, f := range dd.UnpairedA {
			s.printf("only in %s: %s\n", pos[0], s.rel(f.Path))
		}
		for _, f := range dd.UnpairedB {
			s.printf("only in %s: %s\n", pos[1], s.rel(f.Path))
		}
		if compare.Text {
			s.printf("texts left out: %d\n", TextsLeftOut(dd.Pairs))
		}
		s.writeProblems(a.Problems[pa:])
		if b != a {
			s.writeProblems(b.Problems[pb:])
		}
	case "explain":
		need(1)
		d := s.dump(pos[0])
		if d == nil {
			return
		}
		np := len(d.Problems)
		var hs []*History
		switch opt["key"] {
		case "":
			hs = Explain(d, compare)
		case "name":
			hs = ExplainBy(d, func(f *DumpFile) string { return f.Name }, compare)
		default:
			t.Fatalf("key=%s: family (the default) or name", opt["key"])
		}
		if len(hs) == 0 {
			s.printf("no history\n")
		}
		var steps []*Pair
		for _, h := range hs {
			s.printf("history %s: %d file(s)\n", show(h.Family), len(h.Files))
			for _, f := range h.Files {
				s.printf("  %s\n", s.rel(f.Path))
			}
			for _, p := range h.Steps {
				s.printf("  %s → %s: %s\n", s.rel(p.A.Path), s.rel(p.B.Path), s.result(p))
			}
			steps = append(steps, h.Steps...)
		}
		if compare.Text {
			s.printf("texts left out: %d\n", TextsLeftOut(steps))
		}
		s.writeProblems(d.Problems[np:])
	case "name":
		for _, base := range pos {
			id, name, stage, ok := ParseDumpName(base)
			s.printf("%s: id=%d name=%s stage=%s ok=%v\n", base, id, show(name), show(stage), ok)
		}
	case "mkdir":
		need(1)
		if err := os.MkdirAll(s.path(pos[0]), 0o755); err != nil {
			t.Fatal(err)
		}
	case "rm":
		need(1)
		if err := os.Remove(s.path(pos[0])); err != nil {
			t.Fatal(err)
		}
	case "symlink":
		need(2)
		if err := os.Symlink(pos[0], s.path(pos[1])); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	case "truncate":
		need(2)
		if err := os.Truncate(s.path(pos[0]), int64(s.atoi(pos[1]))); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("unknown command %q", args[0])
	}
}

// dump is the dump a command names: the one loaded before, or loaded now with the defaults.
func (s *dumpScript) dump(name string) *Dump {
	if d := s.dumps[name]; d != nil {
		return d
	}
	d, err := LoadDump(s.path(name), LoadOptions{})
	if err != nil {
		s.printf("error: %s\n", s.clean(err.Error()))
		return nil
	}
	s.dumps[name] = d
	return d
}

func (s *dumpScript) writeDump(d *Dump) {
	var stages []string
	for _, st := range d.Stages {
		stages = append(stages, strconv.Quote(st))
	}
	if len(stages) == 0 {
		stages = []string{"none"}
	}
	s.printf("stages %s; ignored %d\n", strings.Join(stages, " "), d.Ignored)
	for _, f := range d.Files {
		held := "held"
		if f.Module == nil {
			held = "read again"
		}
		module := "" // the module's own name, when the file's name does not say it
		if f.ModuleName != f.Name {
			module = " module=" + show(f.ModuleName)
		}
		s.printf("  %s id=%d name=%s stage=%s%s family=%s %s\n", s.rel(f.Path), f.ID, show(f.Name), show(f.Stage), module, show(f.Family), held)
	}
	s.writeProblems(d.Problems)
	for _, w := range d.Warnings {
		s.printf("warning: %s\n", printable(s.clean(w)))
	}
}

func (s *dumpScript) writeProblems(ps []Problem) {
	for _, p := range ps {
		p.Path = s.rel(p.Path)
		s.printf("problem: %s\n", printable(s.clean(p.String())))
	}
}

// result is what a pair's comparison found: its causes' kinds, and whether it has a text diff.
func (s *dumpScript) result(p *Pair) string {
	var kinds []string
	for _, c := range p.Result.Causes {
		kinds = append(kinds, string(c.Kind))
	}
	out := strings.Join(kinds, ", ")
	if p.Text != nil {
		out += " (text diff)"
	}
	return out
}
