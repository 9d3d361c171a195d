package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/recomp/recomp/across"
	"github.com/recomp/recomp/cache"
	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/hlo"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/logscan"
	"github.com/recomp/recomp/runfolder"
)

func TestLineGuard(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain\n::stop-commands::x\n", "plain\n\\x3a:stop-commands::x\n"},
		{"  \t::add-mask::x\n", "  \t\\x3a:add-mask::x\n"},
		{"\u3000\u00a0::error::x\n", "\u3000\u00a0\\x3a:error::x\n"},
		{"a\r::warning::b", "a\r\\x3a:warning::b"},
		{"\x1b[1m::x::y\x1b[0m\n", "\x1b[1m\\x3a:x::y\x1b[0m\n"},
		{"x ##[add-mask]s ##[set-env name=a;]b\n", "x ##\\x5badd-mask]s ##\\x5bset-env name=a;]b\n"},
		{"not :: at the start\n", "not :: at the start\n"},
		{"last line ::", "last line ::"},
	} {
		// written one byte at a time: a line split across writes is guarded as a whole
		var b bytes.Buffer
		g := newLineGuard(&b, Text)
		for i := 0; i < len(c.in); i++ {
			if _, err := g.Write([]byte{c.in[i]}); err != nil {
				t.Fatal(err)
			}
		}
		if err := g.Close(); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("guard(%q) = %q, want %q", c.in, b.String(), c.want)
		}
	}
}

func TestMarkdownEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"jit_train_step":                    "jit_train_step",
		"f32[24,8] and before f32[32,8]":    "f32[24,8] and before f32[32,8]",
		"![x](http://e/i.png)":              `![x\](http:&#8203;//e/i.png)`,
		"[click](x) [a][b] [r]: y":          `[click\](x) [a\][b] [r\]: y`,
		"<img src=x onerror=alert(1)> & co": "&lt;img src=x onerror=alert(1)&gt; &amp; co",
		"cc @octocat and org/repo#12":       "cc @&#8203;octocat and org/repo#&#8203;12",
		"see www.evil.com":                  "see www&#8203;.evil.com",
		"a|b `c` \\":                        "a\\|b 'c' \\\\",
		"line\nbreak\x1b[31m":               `line\\nbreak\\x1b[31m`,
	} {
		if got := mdText(in); got != want {
			t.Errorf("mdText(%q) = %q, want %q", in, got, want)
		}
	}
	for _, c := range []struct {
		in   string
		cell bool
		want string
	}{
		{"jit_f", false, "`jit_f`"},
		{"a|b", true, "`a\\|b`"},
		{"a|b", false, "`a|b`"},
		{"a`b", false, "`` a`b ``"},
		{"x``y`", false, "``` x``y` ```"},
		{"<b>@me</b>\n", false, "`<b>@me</b>\\n`"},
	} {
		if got := mdCode(c.in, c.cell); got != c.want {
			t.Errorf("mdCode(%q, %v) = %q, want %q", c.in, c.cell, got, c.want)
		}
	}
}

// reportsWith builds a report of each command in which every text that comes from a log, a
// dump, a file name or a command line is s.
func reportsWith(t testing.TB, s string) map[string]Report {
	log := "Begin XLA compilation: cluster_0.1  (Hash: 0xa) for ordinal  0\n" +
		"Begin XLA compilation: cluster_0.2  (Hash: 0xb) for ordinal  0\n" +
		"Ending phase: Loading executable (duration 600 ms; diff RSS: 0 MB)\n"
	read, err := ledger.ReadLogs([]ledger.Log{{Path: s, Reader: strings.NewReader(log)}}, ledger.ReadOptions{AllEvents: true})
	if err != nil {
		t.Fatal(err)
	}
	rep, events := read.Ledger, read.Events
	for _, m := range rep.Modules {
		m.Name, m.Family, m.Names, m.Hashes, m.Reasons = s, s, []string{s}, []string{s}, []string{s}
		for _, u := range m.Units {
			u.File, u.Module, u.Family = s, s, s
		}
	}
	rep.Findings = append(rep.Findings, ledger.Finding{Severity: ledger.SeverityError, Kind: ledger.FindingRecompiled,
		Module: s, File: s, Line: 3, Message: s, Advice: s})
	g := gate.Evaluate(rep, nil, gate.Options{})
	if len(g.Failures) == 0 {
		t.Fatalf("the gate should fail: %+v", g)
	}
	for i := range g.Failures {
		f := &g.Failures[i]
		f.Module, f.Family, f.Hash, f.File, f.Message, f.Reason = s, s, s, s, s, s
	}
	g.Problems = []string{s}
	g.Reason = s
	scan := &explain.Scan{Scan: ledger.Scan{Inputs: []ledger.Input{{Path: s, Warnings: []logscan.Warning{{File: s, Line: 1, Message: s}}, WarningCount: 1, ReadError: s}},
		Ledger: rep, Events: events, EventCount: len(events)}}

	file := func() *diff.DumpFile {
		return &diff.DumpFile{Path: s, Name: s, Family: s, ModuleName: s, Module: &hlo.Module{Name: s}}
	}
	res := &diff.Result{Changes: []diff.Change{{Kind: diff.KindConstant, Computation: s, Instruction: s, OpName: s, Old: s, New: s}},
		ChangeCount: 1, Causes: []diff.Cause{{Kind: diff.CauseConstant, Summary: s, Evidence: []string{s, s}, Advice: s}}, Notes: []string{s}}
	same := &diff.Result{Identical: true, Causes: []diff.Cause{{Kind: diff.CauseIdentical, Summary: s, Advice: s}}}
	pairs := []*explain.DiffPair{
		{Pair: &diff.Pair{A: file(), B: file(), PairedBy: diff.PairedByOrder, Result: res}, Group: s, HashA: s, HashB: s,
			Text: &diff.TextDiff{Text: s + "\n" + s + "\n", Lines: []diff.DiffLine{{Op: 'c', Text: s}, {Op: '-', Text: s}, {Op: '+', Text: s + "x"}}, Notes: []string{s}}},
		{Pair: &diff.Pair{A: file(), B: file(), PairedBy: diff.PairedBySimilarity, Result: res}},
		{Pair: &diff.Pair{A: file(), B: file(), PairedBy: diff.PairedByFingerprint, Result: same}},
	}
	d := &explain.Diff{Command: "explain", Pairs: pairs, UnpairedA: []string{s}, UnpairedB: []string{s},
		Families: []explain.Family{{Family: s, Files: []string{s, s}, LogCompilations: 2, LogHashes: []string{s}}},
		Problems: []diff.Problem{{Path: s, Line: 1, Col: 2, Message: s}, {Path: s, Message: s}}, Warnings: []string{s}}

	inv := &cache.Inventory{Entries: []*cache.CacheEntry{{Dir: s, Name: s, Kind: cache.EntryKind("jax"), Size: 10, ModTime: time.Unix(0, 0)}},
		Count: 1, ByKind: map[cache.EntryKind]int{cache.EntryKind("jax"): 1}, MissingMisses: []string{s}, Warnings: []string{s}}
	man := &runfolder.Manifest{Command: []string{s, s}, WallSeconds: 2, ExitCode: 1, Signal: s, Versions: map[string]string{s: s},
		Settings: []runfolder.Setting{{Name: s, Value: s, Effect: s}}, Caches: []runfolder.CacheSnapshot{{Dir: s}}, FirstStepSeconds: 1}
	return map[string]Report{
		"scan":  scan,
		"guard": &across.Guard{Scan: scan, Gate: g},
		"diff":  d,
		"cache": &Cache{Dirs: []string{s}, Inventory: inv, LogsGiven: true},
		"run":   &explain.Run{Folder: s, Manifest: man, Scan: scan, Explain: d, Gate: g},
	}
}

// sgrOwn are the colour sequences recomp's text format writes.
var sgrOwn = regexp.MustCompile(`\x1b\[(1|31|32|33|0)m`)

// checkInert fails when an output in format f can act on its reader: a control character
// (other than recomp's own newlines, and its own colours in text), a line that a CI runner
// takes as a workflow command, Markdown that links, mentions or marks up, XML that is not
// well-formed.
func checkInert(t *testing.T, name string, f Format, out string, color bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s %s: not UTF-8", name, f)
	}
	plain := out
	if color {
		plain = sgrOwn.ReplaceAllString(out, "")
	}
	for _, r := range plain {
		if (r < 0x20 && r != '\n') || r == 0x7f || r >= 0x80 && r <= 0x9f || isBidiControl(r) {
			t.Errorf("%s %s: control character %U in the output:\n%q", name, f, r, out)
			break
		}
	}
	for _, line := range strings.Split(plain, "\n") {
		trimmed := strings.TrimLeftFunc(line, unicode.IsSpace)
		if f == GitHub {
			if line != "" && !regexp.MustCompile(`^::(error|warning|notice)[ :]`).MatchString(line) {
				t.Errorf("%s github: a line that is not recomp's own command: %q", name, line)
			}
			continue
		}
		if strings.HasPrefix(trimmed, "::") {
			t.Errorf("%s %s: a line starts a workflow command: %q", name, f, line)
		}
		if strings.Contains(line, "##[") {
			t.Errorf("%s %s: a line holds an old-style workflow command: %q", name, f, line)
		}
	}
	switch f {
	case Markdown:
		prose := strings.ReplaceAll(stripCodeSpans(out), "&#8203;", "\u200b")
		for _, tag := range []string{"<details>", "</details>", "<summary>", "</summary>"} {
			prose = strings.ReplaceAll(prose, tag, "")
		}
		for _, bad := range []*regexp.Regexp{regexp.MustCompile(`[<>]`), regexp.MustCompile(`[^\\]\][(\[:]`),
			regexp.MustCompile(`@[A-Za-z0-9]`), regexp.MustCompile(`#[0-9]`), regexp.MustCompile(`://`), regexp.MustCompile(`(?i)www\.`)} {
			if m := bad.FindString(prose); m != "" {
				t.Errorf("%s markdown: %q outside code would be markup, a link or a mention:\n%s", name, m, out)
			}
		}
	case JUnit:
		if err := xml.Unmarshal([]byte(out), new(junitSuites)); err != nil {
			t.Errorf("%s junit: %v", name, err)
		}
	case JSON:
		if !json.Valid([]byte(out)) {
			t.Errorf("%s json: not valid", name)
		}
	}
}

// stripCodeSpans removes Markdown's inline code spans (a run of backticks up to the next run
// of as many).
func stripCodeSpans(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '`' {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		fence := s[i:j]
		end := -1
		for k := j; k < len(s); {
			n := strings.Index(s[k:], fence)
			if n < 0 {
				break
			}
			k += n
			e := k + len(fence)
			if (k == 0 || s[k-1] != '`') && (e >= len(s) || s[e] != '`') {
				end = e
				break
			}
			for k < len(s) && s[k] == '`' {
				k++
			}
		}
		if end < 0 {
			b.WriteString(fence)
			i = j
			continue
		}
		i = end
	}
	return b.String()
}

// hostileTexts are what logs, dumps and file names can hold that would act on a reader.
var hostileTexts = []string{
	"::stop-commands::pwned",
	"  \t::add-mask::secret",
	"\u3000::error file=x::forged",
	"a\n::set-output name=x::y\r::warning::z",
	"x ##[add-mask]secret",
	"red \x1b[31m\x1b]0;title\x07 \x9b2J \u009b \x00 \x7f",
	"\ue001private\ue000 use\ue003 \U000F0001 \U00100001",
	"bidi \u202eevil\u2069",
	"![img](http://tracker.example/p.png) [click](https://evil.example) <img src=x onerror=alert(1)> <!-- c -->",
	"cc @octocat @org/team owner/repo#12 #34 user@example.com www.example.com",
	"back`tick``s and | pipes \\ and ]( and ]: x",
	"<script>alert(1)</script>]]>&amp;",
	"\xff\xfe invalid utf-8 \xc2",
	"",
}

// TestRenderInert: whatever text a log, a dump or a file name holds, no output of any command
// in any format can act on its reader (see checkInert).
func TestRenderInert(t *testing.T) {
	for _, s := range hostileTexts {
		renderAllInert(t, s)
	}
}

func renderAllInert(t *testing.T, s string) {
	t.Helper()
	for name, r := range reportsWith(t, s) {
		for _, f := range Formats(commandOf(r)) {
			for _, color := range []bool{false, true} {
				if color && f != Text {
					continue
				}
				var b bytes.Buffer
				if err := Render(&b, f, r, Style{Color: color, Meta: Meta{Version: s, Command: s}}); err != nil {
					t.Fatalf("%s %s: %v", name, f, err)
				}
				checkInert(t, name, f, b.String(), color)
			}
		}
	}
}

func FuzzRenderInert(f *testing.F) {
	for _, s := range hostileTexts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { renderAllInert(t, s) })
}

// TestPrivateUseNeverColours: the characters recomp's painter once used as colour marks
// (U+E000–U+E003), and any other private-use character, are shown as they are, with colour or
// without: only recomp's own paint makes colour.
func TestPrivateUseNeverColours(t *testing.T) {
	s := "\ue001red\ue000 \ue003bold\ue000 \U000F0001"
	g := reportsWith(t, s)["guard"]
	for _, color := range []bool{false, true} {
		var b bytes.Buffer
		if err := Render(&b, Text, g, Style{Color: color}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if !strings.Contains(out, s) {
			t.Errorf("color=%v: the name is not shown as it is:\n%q", color, out)
		}
		rest := sgrOwn.ReplaceAllString(out, "")
		if strings.Contains(rest, "\x1b") || !color && rest != out {
			t.Errorf("color=%v: a colour code recomp did not mean:\n%q", color, out)
		}
		if color && !strings.Contains(out, "\x1b[31mFAIL\x1b[0m") {
			t.Errorf("no colour on the verdict: %q", out)
		}
		if n := strings.Count(out, "\x1b[31m"); color && n != 1+strings.Count(out, "\x1b[31merror\x1b[0m")+strings.Count(out, "\x1b[31m✗\x1b[0m") {
			t.Errorf("red appears %d times, not only on the verdict, the severities and the answer's marks:\n%q", n, out)
		}
	}
}

// TestDiffJSONStreamed: the diff document written pair by pair is byte for byte the document
// encoded whole.
func TestDiffJSONStreamed(t *testing.T) {
	for _, s := range []string{"jit_f", hostileTexts[3], hostileTexts[11]} {
		d := reportsWith(t, s)["diff"].(*explain.Diff)
		for _, pairs := range [][]*explain.DiffPair{d.Pairs, d.Pairs[:1], nil} {
			dd := *d
			dd.Pairs = pairs
			var streamed, whole bytes.Buffer
			if err := writeDiffJSON(&streamed, &dd); err != nil {
				t.Fatal(err)
			}
			if err := writeJSON(&whole, DiffDocument(&dd)); err != nil {
				t.Fatal(err)
			}
			if streamed.String() != whole.String() {
				t.Errorf("%d pairs: streamed\n%s\nwhole\n%s", len(pairs), streamed.String(), whole.String())
			}
		}
	}
}
