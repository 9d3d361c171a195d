package main

import (
	"encoding/json"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/recomp/recomp/report"
)

// truthValueCause is a Python value the program read at trace time and changed: each static
// argument and the values it fed, the constants that became in the graph (Baked), how many
// compilations the values explain, and the other causes' counts (Then).
type truthValueCause struct {
	Identity string              `json:"identity"`
	Static   map[string][]string `json:"static"`
	// Attributes are the plain Python attributes of a module (flax nnx) that the program set, with
	// the reprs of the values, in order: static to its jit, named by JAX's explanation.
	Attributes   map[string][]string `json:"attributes"`
	Baked        []string            `json:"baked"`
	Compilations int                 `json:"compilations"`
	Then         map[string]int      `json:"then"`
	// WithoutProbe is the kind of the first cause from the log and the dump alone, when not
	// python_value: a TF program's Python argument is a constant in the dump, and neither the log
	// nor the dump names the argument (constant_value).
	WithoutProbe string `json:"without_probe"`
	// Sequence says the values are Python lists of several lengths: passed as a tensor, each length
	// would still compile, so the remedy is a few fixed lengths.
	Sequence bool `json:"sequence"`
}

// checkValueCauses holds explain of the run folder to the values the program changed: with
// recomp run's probe records (probe.jsonl) the verdict names the static argument and its values
// first, as one cause over the compilations they explain, in text, Markdown, HTML and JSON;
// without them, from the log and the dump alone, it names a Python value seen at trace time
// with the constants it became. Neither says to jit once: the function is jitted once.
func checkValueCauses(t *testing.T, dir string, tr truth) {
	t.Helper()
	bare := t.TempDir() // the folder without the probe's records
	for _, name := range append([]string{"dump"}, tr.Logs...) {
		if err := os.CopyFS(filepath.Join(bare, name), os.DirFS(filepath.Join(dir, name))); err != nil {
			if b, rerr := os.ReadFile(filepath.Join(dir, name)); rerr == nil {
				err = os.WriteFile(filepath.Join(bare, name), b, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, want := range tr.ValueCauses {
		c, p := valueCauseOf(t, dir, want.Identity)
		if len(want.Attributes) > 0 {
			checkAttributes(t, "with the probe", c, want)
		} else if len(want.Static) == 0 { // no static argument for the probe to see: the values are the dump's
			checkBaked(t, "with the probe", c, want)
		} else if c.Kind != "static_argument" || c.Count != want.Compilations {
			t.Errorf("with the probe: first cause %s ×%d, want static_argument ×%d: %+v", c.Kind, c.Count, want.Compilations, p.Causes)
		}
		for name, fed := range want.Static {
			named := false
			for _, v := range c.Values {
				named = named || v.Name == name && slices.Equal(v.Seen, fed)
			}
			if !strings.Contains(c.Change, "`"+name+"` changed ") || !named {
				t.Errorf("with the probe: %q (values %+v) does not name %s with the values %v", c.Change, c.Values, name, fed)
			}
			array := "jnp.asarray(" + name + ")" // the stack's way to pass it as an array
			if strings.HasPrefix(tr.Matrix, "tf-") {
				array = "tf.constant(" + name + ")"
			}
			if want.Sequence {
				if !strings.Contains(p.Action, "fixed lengths") || !strings.Contains(p.Action, "still compile once per length") ||
					strings.Contains(p.Action, "or keep it fixed") {
					t.Errorf("with the probe: the action does not pad the list %s to fixed lengths: %s", name, p.Action)
				}
			} else if !strings.Contains(p.Action, array) {
				t.Errorf("with the probe: the action does not say to pass %s as an array (%s): %s", name, array, p.Action)
			}
		}
		checkThen(t, "with the probe", p, want)
		for format, quote := range map[string]func(string) string{"text": id, "markdown": mdQuote, "html": html.EscapeString} {
			_, out, _ := runRecomp("explain", "--format", format, dir)
			if format == "markdown" {
				out = mdUnescape(out)
			}
			if !strings.Contains(out, quote(c.Change)) {
				t.Errorf("%s: the answer lacks %q", format, c.Change)
			}
			// one word for the argument everywhere, the stack's: a tf.function's "Python argument"
			// in the verdict and in the "Your lines" table alike
			if strings.HasPrefix(tr.Matrix, "tf-") {
				for name := range want.Static {
					for _, line := range strings.Split(out, "\n") {
						if strings.Contains(line, quote("`"+name+"`")) && strings.Contains(line, "static argument") {
							t.Errorf("%s: the answer calls `%s` a static argument, not a Python argument: %s", format, name, line)
						}
					}
				}
			}
		}

		if len(want.Static) > 0 {
			checkClosestKeyWords(t, dir, want)
		}

		c, p = valueCauseOf(t, bare, want.Identity)
		if len(want.Attributes) > 0 { // JAX's explanation names them: the log tells, probe or not
			checkAttributes(t, "without the probe", c, want)
			for _, args := range [][]string{{"scan", "--format", "json", filepath.Join(dir, tr.Logs[0])}, {"explain", "--format", "json", bare}} {
				var doc struct {
					Verdict *report.VerdictJSON `json:"verdict"`
				}
				_, out, _ := runRecomp(args...)
				if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Verdict == nil || len(doc.Verdict.Programs) == 0 {
					t.Fatalf("%s: %v", strings.Join(args, " "), err)
				}
				checkAttributes(t, strings.Join(args[:1], " "), doc.Verdict.Programs[0].Causes[0], want)
			}
			continue
		}
		if want.Sequence {
			// without the probe a list is an array constant of a new length in each comparison: the
			// verdict names each change, no values over the run (not asserted yet)
			if c.Kind != "constant_value" {
				t.Errorf("without the probe: first cause %s, want the list's constant_value", c.Kind)
			}
			continue
		}
		checkBaked(t, "without the probe", c, want)
		checkThen(t, "without the probe", p, want)
	}
}

// saidTypes is a quote of JAX's words that the types of the arguments changed (its explanation
// by the closest earlier cache key), with what leads it.
var saidTypes = regexp.MustCompile(`said[^:]*: different input types`)

// checkClosestKeyWords holds every report of a run whose static argument changed (scan and guard,
// in every format) to quoting JAX's closest-key words as what they are: the types of the closest
// earlier key, which JAX compares leaving the static values out, and the static argument the
// probe saw change, never as a bare "jax said: different input types".
func checkClosestKeyWords(t *testing.T, dir string, want truthValueCause) {
	t.Helper()
	for _, args := range [][]string{{"scan", "--format", "text"}, {"scan", "--format", "markdown"}, {"scan", "--format", "html"},
		{"scan", "--format", "json"}, {"guard"}, {"guard", "--format", "json"}, {"explain", "--format", "json"}} {
		_, out, _ := runRecomp(append(args, dir)...)
		out = mdUnescape(html.UnescapeString(out))
		for _, m := range saidTypes.FindAllString(out, -1) {
			if !strings.Contains(m, "closest earlier cache key (it compares no static argument values; the probe saw static ") {
				t.Errorf("%s: JAX's closest-key words are quoted as its verdict: %q", strings.Join(args, " "), m)
			}
		}
		for name := range want.Static {
			if saidTypes.MatchString(out) && !strings.Contains(strings.ReplaceAll(out, "'", "`"), "`"+name+"` ") {
				t.Errorf("%s: JAX's closest-key words do not name the static argument %s", strings.Join(args, " "), name)
			}
		}
	}
}

// checkAttributes holds the first cause to the attributes the program set: a static argument's
// kind, named "static attribute `NAME` changed" with the values the program set, over the
// compilations they explain.
func checkAttributes(t *testing.T, how string, c report.VerdictCauseJSON, want truthValueCause) {
	t.Helper()
	if c.Kind != "static_argument" || c.Count != want.Compilations {
		t.Errorf("%s: first cause %s ×%d %q, want static_argument ×%d", how, c.Kind, c.Count, c.Change, want.Compilations)
	}
	for name, set := range want.Attributes {
		named := false
		for _, v := range c.Values {
			named = named || v.Name == name && sameValues(v.Seen, set)
		}
		if !strings.Contains(c.Change, "static attribute `"+name+"` changed ") || !named {
			t.Errorf("%s: %q (values %+v) does not name the attribute %s with the values %v", how, c.Change, c.Values, name, set)
		}
	}
}

// checkBaked holds a cause named from the log and the dump to the constants the values became:
// a python_value (or, where JAX 0.4 says "explanation unavailable!" of a static argument, a
// static_argument) with those values, over the compilations they explain.
func checkBaked(t *testing.T, how string, c report.VerdictCauseJSON, want truthValueCause) {
	t.Helper()
	kindOK := c.Kind == "python_value" || c.Kind == "static_argument" && strings.Contains(c.FrameworkSaid, "explanation unavailable") ||
		how == "without the probe" && want.WithoutProbe != "" && c.Kind == want.WithoutProbe
	if !kindOK || c.Count != want.Compilations || len(c.Values) != 1 || !sameValues(c.Values[0].Seen, want.Baked) {
		t.Errorf("%s: first cause %s ×%d %q %+v, want python_value ×%d with %v", how, c.Kind, c.Count, c.Change, c.Values, want.Compilations, want.Baked)
	}
}

func id(s string) string { return s }

// mdQuote is text as the Markdown report writes it, once mdUnescape has undone its escapes: a
// backtick as a quote (it would open a code span).
func mdQuote(s string) string { return strings.ReplaceAll(s, "`", "'") }

// mdUnescape undoes the Markdown report's escapes of prose.
func mdUnescape(s string) string {
	return strings.NewReplacer(`\\`, `\`, `\]`, "]", `\|`, "|", "&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
}

// valueCauseOf is the first cause explain gives identity in the run folder dir, and its verdict.
func valueCauseOf(t *testing.T, dir, identity string) (report.VerdictCauseJSON, report.ProgramVerdictJSON) {
	t.Helper()
	_, out, stderr := runRecomp("explain", "--format", "json", dir)
	var doc report.DiffJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Verdict == nil {
		t.Fatalf("explain %s: %v %s", dir, err, stderr)
	}
	for _, p := range doc.Verdict.Programs {
		if programName(p.Program) == programName(identity) && len(p.Causes) > 0 {
			return p.Causes[0], p
		}
	}
	t.Fatalf("explain %s: no verdict for %s: %+v", dir, identity, doc.Verdict.Programs)
	return report.VerdictCauseJSON{}, report.ProgramVerdictJSON{}
}

// checkThen holds the other causes of the verdict to the program's counts, each to one
// compilation or more, and its action to never saying "jit once" (the function is jitted once).
func checkThen(t *testing.T, how string, p report.ProgramVerdictJSON, want truthValueCause) {
	t.Helper()
	for kind, n := range want.Then {
		found := false
		for _, c := range p.Causes[1:] {
			found = found || c.Kind == kind && c.Count == n
		}
		if !found {
			t.Errorf("%s: no %s ×%d after the first cause: %+v", how, kind, n, p.Causes)
		}
	}
	if strings.Contains(p.Action, "jit once") {
		t.Errorf("%s: the action says to jit once: %s", how, p.Action)
	}
	for _, c := range p.Causes { // a cause is of the compilations it explains: none is of no compilation
		if c.Count == 0 {
			t.Errorf("%s: cause %s %q explains no compilation: %+v", how, c.Kind, c.Change, p.Causes)
		}
	}
}

// sameValues says whether the values got are fed, each within 0.5% (the dump prints a constant
// in the graph's float32).
func sameValues(got, fed []string) bool {
	if len(got) != len(fed) {
		return false
	}
	for i := range got {
		a, erra := strconv.ParseFloat(got[i], 64)
		b, errb := strconv.ParseFloat(fed[i], 64)
		if erra != nil || errb != nil || math.Abs(a-b) > 0.005*math.Abs(b) {
			return false
		}
	}
	return true
}

// truthStated is the construct a program changed, as the stack's own explanation states it (a
// weak type, a pytree) or as its argument shapes show it (a buffer grown each step): the kind
// the verdict must lead with, the argument it must name, how many compilations it explains, and
// words the action must hold (the stack's own remedy).
type truthStated struct {
	Identity     string   `json:"identity"`
	Kind         string   `json:"kind"`
	Argument     string   `json:"argument"`
	Compilations int      `json:"compilations"`
	Advice       []string `json:"advice"`
}

// checkStated holds the verdict of scan (the log) and explain (the run folder, with its dump) to
// the construct the program changed, in every format: the first cause of its kind over the
// compilations it explains, naming the argument, and an action with the stack's remedy; what the
// dump comparison shows (identical graphs, new ops and constants) never leads.
func checkStated(t *testing.T, dir string, tr truth) {
	t.Helper()
	want := tr.Stated
	for _, args := range [][]string{{"scan", filepath.Join(dir, tr.Logs[0])}, {"explain", dir}} {
		how := args[0]
		_, out, stderr := runRecomp(append([]string{args[0], "--format", "json"}, args[1:]...)...)
		var doc struct {
			Verdict *report.VerdictJSON `json:"verdict"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Verdict == nil {
			t.Fatalf("%s %s: %v %s", how, args[1], err, stderr)
		}
		var p *report.ProgramVerdictJSON
		for i := range doc.Verdict.Programs {
			if programName(doc.Verdict.Programs[i].Program) == programName(want.Identity) {
				p = &doc.Verdict.Programs[i]
			}
		}
		if p == nil || len(p.Causes) == 0 {
			t.Fatalf("%s: no verdict for %s", how, want.Identity)
		}
		c := p.Causes[0]
		if c.Kind != want.Kind || c.Count != want.Compilations || !strings.Contains(c.Change, want.Argument) {
			t.Errorf("%s: first cause %s ×%d %q, want %s ×%d naming %s", how, c.Kind, c.Count, c.Change, want.Kind, want.Compilations, want.Argument)
		}
		for _, a := range want.Advice {
			if !strings.Contains(p.Action, a) {
				t.Errorf("%s: the action lacks %q: %s", how, a, p.Action)
			}
		}
		if strings.Contains(p.Action, "jit once") || strings.Contains(p.Action, " pad ") {
			t.Errorf("%s: the action says to jit once or to pad: %s", how, p.Action)
		}
		for format, quote := range map[string]func(string) string{"text": id, "markdown": mdQuote, "html": html.EscapeString} {
			_, out, _ := runRecomp(append([]string{args[0], "--format", format}, args[1:]...)...)
			if format == "markdown" {
				out = mdUnescape(out)
			}
			short := []rune(c.Change)
			if len(short) > 60 {
				short = short[:60] // a verdict line may cut a long change
			}
			if !strings.Contains(out, quote(string(short))) || !strings.Contains(out, quote(want.Advice[0])) {
				t.Errorf("%s --format %s: the answer lacks %q or %q", how, format, string(short), want.Advice[0])
			}
		}
	}
}
