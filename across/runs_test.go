package across

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/internal/dumptest"
	"github.com/recomp/recomp/runfolder"
)

// keyOf is a JAX persistent-cache key of module m (its hash part made from tag).
func keyOf(m, tag string) string { return m + "-" + strings.Repeat(tag, 64/len(tag)) }

// jaxRequest is one compile request of jit(f) as JAX 0.12 logs it with a persistent cache:
// the request, the lookup, then what became of it (lines, in order).
func jaxRequest(fn, shape string, lines ...string) string {
	s := fmt.Sprintf("Compiling jit(%s) with global shapes and types (ShapedArray(float32[%s]),). Argument mapping: (UnspecifiedValue,).\n", fn, shape)
	for _, l := range lines {
		s += l + "\n"
	}
	return s + fmt.Sprintf("Finished XLA compilation of jit(%s) in 0.25 sec\n", fn)
}

func miss(m, key string) string {
	return fmt.Sprintf("PERSISTENT COMPILATION CACHE MISS for '%s' with key '%s'", m, key)
}
func wrote(m, key string) string {
	return fmt.Sprintf("Writing %s to persistent compilation cache with key '%s'", m, key)
}
func hit(m, key string) string {
	return fmt.Sprintf("Persistent compilation cache hit for '%s' with key '%s'", m, key)
}

// writeFile writes a file under dir and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// compareRuns runs Runs on two logs (and dumps) and returns B's one verdict.
func compareRuns(t *testing.T, a, b RunSide, caches ...string) *ProgramVerdict {
	t.Helper()
	r, err := Runs(a, b, RunsOptions{Caches: caches})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Programs) != 1 {
		t.Fatalf("%d verdicts: %+v", len(r.Programs), r.Programs)
	}
	return r.Programs[0]
}

// The reasons a key run A compiled was missed by run B: A did not write it (its words quoted; a
// read-only folder), the folder lost it, B could not read it; and the other reasons: A never
// compiled the program, B looked nothing up, the signatures say the graph changed, nothing says.
func TestRunsReasons(t *testing.T) {
	dir := t.TempDir()
	k := keyOf("jit_f", "ab")
	errRead := "/x/jax/_src/compiler.py:806: UserWarning: Error reading persistent compilation cache entry for 'jit_f': XlaRuntimeError: INTERNAL: Failed to deserialize executable"
	errWrite := "/x/jax/_src/compiler.py:870: UserWarning: Error writing persistent compilation cache entry for 'jit_f': OSError: [Errno 30] Read-only file system"
	written := writeFile(t, dir, "written.log", jaxRequest("f", "32,8", miss("jit_f", k), wrote("jit_f", k)))
	cache := filepath.Join(dir, "cache")
	os.MkdirAll(cache, 0o755)
	for _, c := range []struct {
		name, a, b string
		caches     []string
		reason     MissReason
		quote      string
		summary    string
	}{
		{"evicted", written, jaxRequest("f", "32,8", miss("jit_f", k), wrote("jit_f", k)), []string{cache}, MissEvicted, "", "no longer holds it"},
		{"no folder given", written, jaxRequest("f", "32,8", miss("jit_f", k)), nil, MissUnknown, "", "--cache"},
		{"unreadable", written, jaxRequest("f", "32,8", errRead, miss("jit_f", k), wrote("jit_f", k)), nil, MissUnreadable, "Error reading", "could not read"},
		{"read-only", jaxRequest("f", "32,8", miss("jit_f", k), errWrite), jaxRequest("f", "32,8", miss("jit_f", k)), nil, MissReadOnly, "Read-only", "read-only"},
		{"never written, not said why", jaxRequest("f", "32,8", miss("jit_f", k)), jaxRequest("f", "32,8", miss("jit_f", k)), nil, MissNeverWritten, "", "no write"},
		{"not in A", jaxRequest("g", "32,8", miss("jit_g", keyOf("jit_g", "cd"))), jaxRequest("f", "32,8", miss("jit_f", k)), nil, MissNotInA, "", "never compiled jit_f"},
		{"not looked up", written, jaxRequest("f", "32,8"), nil, MissNotLookedUp, "", "no cache lookup"},
		{"signatures", written, jaxRequest("f", "24,8", miss("jit_f", keyOf("jit_f", "ef"))), nil, MissGraphDiffers, "", "batch size"},
		{"unknown", written, jaxRequest("f", "32,8", miss("jit_f", keyOf("jit_f", "ef"))), nil, MissUnknown, "", "nothing says why"},
	} {
		a := c.a
		if !strings.HasPrefix(a, dir) {
			a = writeFile(t, dir, c.name+"-a.log", a)
		}
		b := writeFile(t, dir, c.name+"-b.log", c.b)
		v := compareRuns(t, RunSide{Path: a, Logs: []string{a}}, RunSide{Path: b, Logs: []string{b}}, c.caches...)
		if v.Served || v.Reason != c.reason || !strings.Contains(v.Summary, c.summary) || v.Advice == "" && c.reason != MissUnknown {
			t.Errorf("%s: %s: %s (advice %q), want %s (%q)", c.name, v.Reason, v.Summary, v.Advice, c.reason, c.summary)
		}
		if (v.Quote != nil) != (c.quote != "") || v.Quote != nil && !strings.Contains(v.Quote.Text, c.quote) {
			t.Errorf("%s: quote %+v, want %q", c.name, v.Quote, c.quote)
		}
		if c.reason == MissGraphDiffers && (v.Cause == nil || v.Cause.Kind != diff.CauseBatchSize || v.CauseFrom != "signature") {
			t.Errorf("%s: cause %+v from %q", c.name, v.Cause, v.CauseFrom)
		}
	}
	// The entry is in the folder: B looked elsewhere.
	os.WriteFile(filepath.Join(cache, k+"-cache"), []byte("x"), 0o644)
	b := writeFile(t, dir, "present-b.log", jaxRequest("f", "32,8", miss("jit_f", k)))
	if v := compareRuns(t, RunSide{Logs: []string{written}}, RunSide{Logs: []string{b}}, cache); v.Reason != MissUnknown ||
		!strings.Contains(v.Summary, "holds it") {
		t.Errorf("present: %s: %s", v.Reason, v.Summary)
	}
}

// A hit saves what compiling the entry took, less the time B took to get it: A's logged compile
// time when A wrote it, else the whole seconds JAX stored at the head of the entry.
func TestRunsSaved(t *testing.T) {
	dir := t.TempDir()
	k := keyOf("jit_f", "ab")
	a := writeFile(t, dir, "a.log", jaxRequest("f", "32,8", miss("jit_f", k), wrote("jit_f", k)))
	b := writeFile(t, dir, "b.log", strings.ReplaceAll(jaxRequest("f", "32,8", hit("jit_f", k)), "0.25 sec", "0.05 sec"))
	v := compareRuns(t, RunSide{Logs: []string{a}}, RunSide{Logs: []string{b}})
	if !v.Served || v.Saved != 200*time.Millisecond || v.SavedFrom != "log" || v.Reason != "" {
		t.Errorf("saved by A's entry: %+v", v)
	}
	// An entry an earlier run wrote: its stored seconds.
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write([]byte{0, 0, 0, 5, 'x'})
	zw.Close()
	cache := filepath.Join(dir, "cache")
	writeFile(t, cache, k+"-cache", z.String())
	other := writeFile(t, dir, "other.log", jaxRequest("g", "2", miss("jit_g", keyOf("jit_g", "cd"))))
	v = compareRuns(t, RunSide{Logs: []string{other}}, RunSide{Logs: []string{b}}, cache)
	if !v.Served || v.Saved != 4950*time.Millisecond || v.SavedFrom != "cache entry" {
		t.Errorf("saved by an older entry: %+v", v)
	}
}

// Without JAX's cache-key log, the dumps say the graph is the same and the manifests of recomp
// run name what changed outside it (XLA_FLAGS, its dump flags left out); with neither, recomp
// says what would tell. The logs are the real cache-xla-flag runs with their cache-key lines
// taken out.
func TestRunsOutsideGraphFromDumpsAndManifests(t *testing.T) {
	src := "../testdata/runs/jax-0.12/cache-xla-flag"
	dir := t.TempDir()
	strip := regexp.MustCompile(`(?m)^.*jax\._src\.cache_key.*\n`)
	var sides [2]RunSide
	for i, n := range []string{"1", "2"} {
		b, err := os.ReadFile(filepath.Join(src, "run"+n+".log"))
		if err != nil {
			t.Fatal(err)
		}
		stripped := strip.ReplaceAllString(string(b), "")
		if strings.Contains(stripped, "get_cache_key") || !strings.Contains(string(b), "get_cache_key") {
			t.Fatal("the cache-key lines were not there, or are still there")
		}
		log := writeFile(t, dir, "run"+n+".log", stripped)
		sides[i] = RunSide{Logs: []string{log}, Dump: filepath.Join(src, "dump"+n)}
	}
	v := compareRuns(t, sides[0], sides[1])
	if v.Reason != MissKeyOutsideGraph || v.Component != "" || !strings.Contains(v.Summary, "JAX_DEBUG_LOG_MODULES") {
		t.Errorf("no manifests: %s %q: %s", v.Reason, v.Component, v.Summary)
	}
	for i, flags := range []string{"--xla_dump_to=/r1/dump --xla_dump_hlo_as_text", "--xla_cpu_enable_fast_min_max=true --xla_dump_to=/r2/dump"} {
		m := &runfolder.Manifest{Version: 1, Settings: []runfolder.Setting{{Name: "XLA_FLAGS", Value: flags}},
			Versions: map[string]string{"jax": "0.12.0.1"}, FirstStepSeconds: -1}
		d := filepath.Join(dir, fmt.Sprint("m", i))
		os.MkdirAll(d, 0o755)
		if err := runfolder.WriteManifest(d, m); err != nil {
			t.Fatal(err)
		}
		sides[i].Manifest = filepath.Join(d, runfolder.ManifestName)
	}
	r, err := Runs(sides[0], sides[1], RunsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v = r.Programs[0]
	if v.Reason != MissKeyOutsideGraph || v.Component != "XLA flags" || len(v.Changed) != 1 ||
		!strings.Contains(v.Changed[0], "(none) → --xla_cpu_enable_fast_min_max=true") {
		t.Errorf("manifests: %s %q %q: %s", v.Reason, v.Component, v.Changed, v.Summary)
	}
	if len(r.Settings) != 1 || r.Settings[0].Name != "XLA_FLAGS" || len(r.Versions) != 0 || r.Dumps == nil {
		t.Errorf("settings %+v, versions %+v", r.Settings, r.Versions)
	}
}

// What recomp diff is given for a run: a run folder, a folder with one log and one dump, a dump
// folder, an HLO file or a log, and --log-a / --dump-a added.
func TestOpenSide(t *testing.T) {
	run := "../testdata/runs/jax-0.12/partial-batch"
	s, err := OpenSide(run, nil, "")
	if err != nil || len(s.Logs) != 1 || filepath.Base(s.Logs[0]) != runfolder.LogName || s.Dump != filepath.Join(run, "dump") || !HasLogs(s) {
		t.Errorf("run folder: %+v, %v", s, err)
	}
	dump := filepath.Join(run, "dump")
	if s, _ := OpenSide(dump, nil, ""); s.Dump != dump || HasLogs(s) {
		t.Errorf("dump folder: %+v", s)
	}
	hlo := filepath.Join(dump, "module_0000.jit_train_step.before_optimizations.txt")
	if s, _ := OpenSide(hlo, []string{"x.log"}, ""); s.Dump != hlo || len(s.Logs) != 1 {
		t.Errorf("HLO file with --log-a: %+v", s)
	}
	log := filepath.Join(run, "run.log")
	if s, _ := OpenSide(log, nil, dump); s.Dump != dump || len(s.Logs) != 1 || s.Logs[0] != log {
		t.Errorf("log with --dump-a: %+v", s)
	}
	dir := t.TempDir()
	writeFile(t, dir, "train.log", "hello\n")
	writeFile(t, dir, "xla/module_0001.jit_f.before_optimizations.txt", dumptest.Module("jit_f", 4))
	if s, _ := OpenSide(dir, nil, ""); len(s.Logs) != 1 || s.Dump != filepath.Join(dir, "xla") {
		t.Errorf("a folder with a log and a dump: %+v", s)
	}
	if _, err := OpenSide(run, nil, "elsewhere"); err == nil {
		t.Error("a second dump for a run folder accepted")
	}
	if _, err := OpenSide(filepath.Join(dir, "missing"), nil, ""); err == nil {
		t.Error("a missing path accepted")
	}
}

// Two runs' dumps are compared as recomp diff compares two dumps: with text diffs capped, the
// report says how many differing pairs got none, and one dump's problems are not appended into
// the other's.
func TestRunsDumpsAsDiff(t *testing.T) {
	a, da := dumptest.Write(t, t.TempDir(), dumptest.File{ID: 0, Name: "jit_step", Batch: 32}, dumptest.File{ID: 1, Name: "jit_eval", Batch: 32})
	b, _ := dumptest.Write(t, t.TempDir(), dumptest.File{ID: 4, Name: "jit_step", Batch: 24}, dumptest.File{ID: 5, Name: "jit_eval", Batch: 16})
	opt := explain.Options{Text: true, MaxTexts: 1}
	want, err := explain.Dumps(a, b, opt)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Runs(RunSide{Path: a, Dump: a}, RunSide{Path: b, Dump: b}, RunsOptions{Options: opt})
	if err != nil {
		t.Fatal(err)
	}
	if pairs(r.Dumps) != pairs(want) || len(want.Pairs) != 2 {
		t.Errorf("pairs %q, recomp diff of the dumps %q", pairs(r.Dumps), pairs(want))
	}
	left := "text diffs of the first 1 differing pairs only: 1 more differ"
	if !slices.ContainsFunc(r.Dumps.Warnings, func(w string) bool { return strings.Contains(w, left) }) ||
		!slices.ContainsFunc(want.Warnings, func(w string) bool { return strings.Contains(w, left) }) {
		t.Errorf("warnings %q, recomp diff of the dumps %q", r.Dumps.Warnings, want.Warnings)
	}
	da.Problems = make([]diff.Problem, 0, 4)
	db := &diff.Dump{Problems: []diff.Problem{{Path: "b"}}}
	explain.CompareDumps(da, db, explain.Options{})
	if da.Problems[:1][0].Path == "b" { // within a's capacity, past its length
		t.Errorf("b's problem written into a's: %+v", da.Problems[:1])
	}
}
