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
	k := dumptest.CacheKey("jit_f", "ab")
	errRead := "/x/jax/_src/compiler.py:806: UserWarning: Error reading persistent compilation cache entry for 'jit_f': XlaRuntimeError: INTERNAL: Failed to deserialize executable"
	errWrite := "/x/jax/_src/compiler.py:870: UserWarning: Error writing persistent compilation cache entry for 'jit_f': OSError: [Errno 30] Read-only file system"
	written := dumptest.WriteFile(t, dir, "written.log", dumptest.JAXRequest("f", "32,8", dumptest.CacheMiss("jit_f", k), dumptest.CacheWrote("jit_f", k)))
	cache := filepath.Join(dir, "cache")
	os.MkdirAll(cache, 0o755)
	for _, c := range []struct {
		name, a, b string
		caches     []string
		reason     MissReason
		quote      string
		summary    string
	}{
		{"evicted", written, dumptest.JAXRequest("f", "32,8", dumptest.CacheMiss("jit_f", k), dumptest.CacheWrote("jit_f", k)), []string{cache}, MissEvicted, "", "no longer holds it"},
		{"no folder given", written, dumptest.JAXRequest("f", "32,8", dumptest.CacheMiss("jit_f", k)), nil, MissUnknown, "", "--cache"},
		{"unreadable", written, dumptest.JAXRequest("f", "32,8", errRead, dumptest.CacheMiss("jit_f", k), dumptest.CacheWrote("jit_f", k)), nil, MissUnreadable, "Error reading", "could not read"},
		{"read-only", dumptest.JAXRequest("f", "32,8", dumptest.CacheMiss("jit_f", k), errWrite), dumptest.JAXRequest("f", "32,8", dumptest.CacheMiss("jit_f", k)), nil, MissReadOnly, "Read-only", "read-only"},
		{"never written, not said why", dumptest.JAXRequest("f", "32,8", dumptest.CacheMiss("jit_f", k)), dumptest.JAXRequest("f", "32,8", dumptest.CacheMiss("jit_f", k)), nil, MissNeverWritten, "", "no write"},
		{"not in A", dumptest.JAXRequest("g", "32,8", dumptest.CacheMiss("jit_g", dumptest.CacheKey("jit_g", "cd"))), dumptest.JAXRequest("f", "32,8", dumptest.CacheMiss("jit_f", k)), nil, MissNotInA, "", "never compiled jit_f"},
		{"not looked up", written, dumptest.JAXRequest("f", "32,8"), nil, MissNotLookedUp, "", "no cache lookup"},
		{"signatures", written, dumptest.JAXRequest("f", "24,8", dumptest.CacheMiss("jit_f", dumptest.CacheKey("jit_f", "ef"))), nil, MissGraphDiffers, "", "batch size"},
		{"unknown", written, dumptest.JAXRequest("f", "32,8", dumptest.CacheMiss("jit_f", dumptest.CacheKey("jit_f", "ef"))), nil, MissUnknown, "", "nothing says why"},
	} {
		a := c.a
		if !strings.HasPrefix(a, dir) {
			a = dumptest.WriteFile(t, dir, c.name+"-a.log", a)
		}
		b := dumptest.WriteFile(t, dir, c.name+"-b.log", c.b)
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
	b := dumptest.WriteFile(t, dir, "present-b.log", dumptest.JAXRequest("f", "32,8", dumptest.CacheMiss("jit_f", k)))
	if v := compareRuns(t, RunSide{Logs: []string{written}}, RunSide{Logs: []string{b}}, cache); v.Reason != MissUnknown ||
		!strings.Contains(v.Summary, "holds it") {
		t.Errorf("present: %s: %s", v.Reason, v.Summary)
	}
}

// A hit saves what compiling the entry took, less the time B took to get it: A's logged compile
// time when A wrote it, else the whole seconds JAX stored at the head of the entry.
func TestRunsSaved(t *testing.T) {
	dir := t.TempDir()
	k := dumptest.CacheKey("jit_f", "ab")
	a := dumptest.WriteFile(t, dir, "a.log", dumptest.JAXRequest("f", "32,8", dumptest.CacheMiss("jit_f", k), dumptest.CacheWrote("jit_f", k)))
	b := dumptest.WriteFile(t, dir, "b.log", strings.ReplaceAll(dumptest.JAXRequest("f", "32,8", dumptest.CacheHit("jit_f", k)), "0.25 sec", "0.05 sec"))
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
	dumptest.WriteFile(t, cache, k+"-cache", z.String())
	other := dumptest.WriteFile(t, dir, "other.log", dumptest.JAXRequest("g", "2", dumptest.CacheMiss("jit_g", dumptest.CacheKey("jit_g", "cd"))))
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
	var sides [2]RunSide
	for i, stripped := range cacheRunsWithout(t, `jax\._src\.cache_key`) {
		if strings.Contains(stripped, "get_cache_key") {
			t.Fatal("the cache-key lines are still there")
		}
		n := fmt.Sprint(i + 1)
		log := dumptest.WriteFile(t, dir, "run"+n+".log", stripped)
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
	dumptest.WriteFile(t, dir, "train.log", "hello\n")
	dumptest.WriteFile(t, dir, "xla/module_0001.jit_f.before_optimizations.txt", dumptest.Module("jit_f", 4))
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

// JAX 0.12 logs each part of a cache key even with no persistent cache: two recomp run folders
// whose manifests name no cache folder looked nothing up (not_looked_up, not a key changed
// outside the graph). The logs are the real cache-xla-flag runs without their cache lookup and
// write lines, as JAX prints them with no cache (checked against a real run without one).
func TestRunsNoCacheDespiteKeyLog(t *testing.T) {
	dir := t.TempDir()
	var sides [2]RunSide
	for i, stripped := range cacheRunsWithout(t, `PERSISTENT COMPILATION CACHE MISS|to persistent compilation cache|persistent compilation cache entry`) {
		if !strings.Contains(stripped, "get_cache_key") || strings.Contains(stripped, "CACHE MISS for") {
			t.Fatal("the cache-key lines are gone, or the lookup lines are still there")
		}
		d := filepath.Join(dir, fmt.Sprint("r", i+1))
		log := dumptest.WriteFile(t, d, runfolder.LogName, stripped)
		m := &runfolder.Manifest{Version: 1, Caches: []runfolder.CacheSnapshot{}, FirstStepSeconds: -1}
		if err := runfolder.WriteManifest(d, m); err != nil {
			t.Fatal(err)
		}
		sides[i] = RunSide{Path: d, Logs: []string{log}, Manifest: filepath.Join(d, runfolder.ManifestName)}
	}
	if v := compareRuns(t, sides[0], sides[1]); v.Reason != MissNotLookedUp {
		t.Errorf("no cache folder in the manifests: %s: %s", v.Reason, v.Summary)
	}
	// Without a manifest to say, the key's parts are taken as a lookup, as before.
	sides[1].Manifest = ""
	if v := compareRuns(t, sides[0], sides[1]); v.Reason != MissKeyOutsideGraph {
		t.Errorf("no manifest: %s: %s", v.Reason, v.Summary)
	}
}

// cacheRunsWithout is the two real cache-xla-flag logs without the lines that match lines.
func cacheRunsWithout(t *testing.T, lines string) [2]string {
	t.Helper()
	strip := regexp.MustCompile(`(?m)^.*(?:` + lines + `).*\n`)
	var out [2]string
	for i := range out {
		b, err := os.ReadFile(fmt.Sprintf("../testdata/runs/jax-0.12/cache-xla-flag/run%d.log", i+1))
		if err != nil {
			t.Fatal(err)
		}
		if out[i] = strip.ReplaceAllString(string(b), ""); out[i] == string(b) {
			t.Fatal("no line to take out")
		}
	}
	return out
}

// PyTorch/XLA 2.9 on CPU (the real runs of testdata/runs/torch-xla-2.9/persistent-cache): run
// B found the entry run A wrote and could not deserialise it; its metrics say so
// (PersistentCacheDeserializeFailure), and that is why it compiled the graph again, in
// PyTorch/XLA's words, never JAX's. With the cache off in run B (no lookup counted), it was not
// looked up.
func TestRunsTorchXLAUnreadable(t *testing.T) {
	run := "../testdata/runs/torch-xla-2.9/persistent-cache"
	a, b := run+"/run1.log", run+"/run2.log"
	v := compareRuns(t, RunSide{Logs: []string{a}}, RunSide{Logs: []string{b}}, run+"/cache")
	if v.Served || v.Reason != MissUnreadable || v.Quote == nil || v.Quote.Text != "PersistentCacheDeserializeFailure 1" ||
		!strings.Contains(v.Summary, "Deserializing serialized executable not supported") || strings.Contains(v.Summary+v.Advice, "JAX") ||
		!strings.Contains(v.Advice, "deserialise") {
		t.Errorf("%s: %s (%+v) → %s", v.Reason, v.Summary, v.Quote, v.Advice)
	}
	log, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	off := regexp.MustCompile(`(?m)^(?:Counter: PersistentCache\w+\n  Value: \d+|.*Failed to deserialize executable.*)\n`).ReplaceAll(log, nil)
	if bytes.Equal(off, log) {
		t.Fatal("no persistent-cache counter in run 2")
	}
	offLog := filepath.Join(t.TempDir(), "off.log")
	os.WriteFile(offLog, off, 0o644)
	if v := compareRuns(t, RunSide{Logs: []string{a}}, RunSide{Logs: []string{offLog}}); v.Reason != MissNotLookedUp ||
		!strings.Contains(v.Summary, "PersistentCacheMiss") {
		t.Errorf("cache off: %s: %s", v.Reason, v.Summary)
	}
}
