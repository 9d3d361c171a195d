package explain

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/internal/dumptest"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/runfolder"
	"github.com/recomp/recomp/verdict"
)

// stamped prefixes each line with the time it arrived, as recomp run writes run.log.
func stamped(start time.Time, lines ...string) string {
	var b strings.Builder
	for i, l := range lines {
		b.WriteString(start.Add(time.Duration(i)*time.Second).Format(time.RFC3339Nano) + " " + l + "\n")
	}
	return b.String()
}

// Folder reads a run folder back: the scan of its log, the time to the first step, the
// recompilation explained from its dump, and the gate when asked.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	dumptest.Write(t, dir, dumptest.File{ID: 0, Name: "jit_step", Batch: 32}, dumptest.File{ID: 1, Name: "jit_step", Batch: 24})
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c32 := strings.Split(strings.TrimSuffix(jax("step", "ShapedArray(float32[32,8])"), "\n"), "\n")
	c24 := strings.Split(strings.TrimSuffix(jax("step", "ShapedArray(float32[24,8])"), "\n"), "\n")
	log := stamped(start.Add(time.Second), "loading data", c32[0], c32[1], "step 1 loss 0.5", c24[0], c24[1], "step 2 loss 0.4")
	if err := os.WriteFile(filepath.Join(dir, runfolder.LogName), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &runfolder.Manifest{Start: start, FirstStepSeconds: -1}
	r, err := Folder(dir, m, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Folder != dir || r.Manifest != m || r.Scan.Ledger.Summary.Compilations != 2 || !r.Scan.SameProcess || r.Gate != nil {
		t.Errorf("run %+v, summary %+v", r, r.Scan.Ledger.Summary)
	}
	if m.FirstStepSeconds != 4 {
		t.Errorf("first step %vs after the start, want 4s", m.FirstStepSeconds)
	}
	if r.Explain == nil || pairs(r.Explain) != "jit_step: module_0000 -> module_0001: batch_size" || r.Explain.Pairs[0].Text == nil {
		t.Errorf("explain %+v", r.Explain)
	}

	r, err = Folder(dir, &runfolder.Manifest{Start: start}, RunOptions{Gate: &gate.Options{MaxRecompiles: 1}})
	if err != nil || r.Gate == nil || !r.Gate.Passed {
		t.Errorf("gate tolerating one recompilation: %v, %+v", err, r.Gate)
	}
	r, err = Folder(dir, &runfolder.Manifest{Start: start}, RunOptions{Gate: &gate.Options{}})
	if err != nil || r.Gate == nil || r.Gate.Passed {
		t.Errorf("gate: %v, %+v", err, r.Gate)
	}

	// A dump that cannot be explained leaves the report without an explanation; no run.log is
	// an error.
	os.RemoveAll(filepath.Join(dir, "dump"))
	os.Mkdir(filepath.Join(dir, "dump"), 0o755)
	os.WriteFile(filepath.Join(dir, "dump", "notes.txt"), []byte("not hlo"), 0o644)
	if r, err := Folder(dir, &runfolder.Manifest{Start: start}, RunOptions{}); err != nil || r.Explain != nil {
		t.Errorf("an unexplainable dump: %v, %+v", err, r.Explain)
	}
	os.Remove(filepath.Join(dir, runfolder.LogName))
	if _, err := Folder(dir, &runfolder.Manifest{Start: start}, RunOptions{}); err == nil || !strings.Contains(err.Error(), runfolder.LogName) {
		t.Errorf("no run.log: %v", err)
	}
}

// The probe's lines go to the compilations whose log named no line of the program's own (JAX's
// call site inside a library's wrapper, TF's compilations inside Keras's fit), never over one
// the log named.
func TestRunAttachesTheProbesLines(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	lib := "TRACING CACHE MISS at /v/lib/python3.12/site-packages/flax/nnx/transforms/compilation.py:1023:49 (JitWrapped.__call__):"
	user := "TRACING CACHE MISS at /w/eval.py:9:4 (main):"
	log := stamped(start,
		lib, "  never seen function:", "    step id=1 defined at /w/train.py:20",
		"Compiling jit(step) with global shapes and types (ShapedArray(float32[32,8]),). Argument mapping: (UnspecifiedValue,).",
		"Finished XLA compilation of jit(step) in 0.1 sec",
		user, "  never seen function:", "    evaluate id=2 defined at /w/eval.py:3",
		"Compiling jit(evaluate) with global shapes and types (ShapedArray(float32[32,8]),). Argument mapping: (UnspecifiedValue,).",
		"Finished XLA compilation of jit(evaluate) in 0.1 sec",
		"I0000 00:00:1767323062.000000   1 device_compiler.h:551] Instantly compiling for signature: __inference_one_step_on_data_12",
		"I0000 00:00:1767323062.500000   1 device_compilation_profiler.cc:113] Compiled __inference_one_step_on_data_12 1 times, compile time: 100 us, cumulative: 100 us")
	probe := `{"framework":"jax","event":"compile","seconds":0.1,"name":"jit(step)","file":"/w/train.py","line":64,"function":"main","t":1767323046,"pid":1}
{"framework":"jax","event":"compile","seconds":0.1,"name":"jit(evaluate)","file":"/w/other.py","line":1,"function":"main","t":1767323051,"pid":1}
{"framework":"keras","event":"fit_begin","file":"/w/keras_train.py","line":40,"function":"<module>","t":1767323050,"pid":1,"samples":100,"batch_size":32}
not a record
{"framework":"keras","event":"fit_end","t":1767323070,"pid":1}
`
	for name, text := range map[string]string{runfolder.LogName: log, runfolder.ProbeName: probe} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Folder(dir, &runfolder.Manifest{Start: start}, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sites, via := map[string]string{}, map[string]string{}
	for _, m := range r.Scan.Ledger.Modules {
		for _, u := range m.Units {
			sites[u.Module] = u.Site.String()
			if u.Via != nil {
				via[u.Module] = fmt.Sprintf("%s %s %d/%d", u.Via.FrontEnd, u.Via.Method, u.Via.Samples, u.Via.BatchSize)
			}
		}
	}
	// Compiled during the fit, on any backend: under Keras.
	if via["jit_step"] != "" || via["jit_evaluate"] != "keras fit 100/32" || via["__inference_one_step_on_data_12"] != "keras fit 100/32" {
		t.Errorf("front ends: %v", via)
	}
	want := map[string]string{
		"jit_step":                        "/w/train.py:64 (main)", // the log's line was flax's
		"jit_evaluate":                    "/w/eval.py:9 (main)",   // the log's own line stays
		"__inference_one_step_on_data_12": "/w/keras_train.py:40 (<module>)",
	}
	for m, w := range want {
		if sites[m] != w {
			t.Errorf("%s: site %q, want %q (all %v)", m, sites[m], w, sites)
		}
	}
}

// recomp run of a launcher (its console tagged by rank, as the real ranks-job's launcher.txt):
// the run is read as a job, a verdict per departing rank, the costs of four processes.
func TestRunOfALauncher(t *testing.T) {
	b, err := os.ReadFile("../testdata/runs/jax-0.12/ranks-job/launcher.txt")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	log := stamped(start.Add(time.Second), strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")...)
	if err := os.WriteFile(filepath.Join(dir, runfolder.LogName), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Folder(dir, &runfolder.Manifest{Start: start, WallSeconds: 15, FirstStepSeconds: -1}, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v, job := r.Scan.Verdict, r.Scan.Job
	if job == nil || len(job.Ranks) != 4 || len(job.Divergences) != 2 || job.Divergences[0].Rank != "0" || job.Divergences[1].Rank != "2" ||
		job.Divergences[1].Step != 6 || job.Divergences[1].Cause == nil {
		t.Fatalf("job %+v", job)
	}
	if v.Processes != 4 || v.Slowest >= v.Compile || v.Wall != 15*time.Second || v.WallExceeded != 0 || v.Recompile > v.Compile/10 {
		t.Errorf("verdict: %d processes, slowest %v of %v, wall %v (exceeded %v), recompile %v", v.Processes, v.Slowest, v.Compile, v.Wall, v.WallExceeded, v.Recompile)
	}
}

// A real run (testdata/spawn-workers, made by testdata/runs/gen/spawn-run.sh spawn_workers.py: JAX 0.12 on CPU): four
// multiprocessing spawn workers each compile three programs into one terminal, so run.log
// interleaves their records, and two workers' identical requests follow each other. Each
// worker is a process of its own, told apart by the probe's records, and the counts are JAX's
// own (its monitoring events, in probe.jsonl): 12 compile requests and compilations, four per
// program, none a recompilation.
func TestSpawnWorkers(t *testing.T) {
	dir := filepath.Join("testdata", "spawn-workers")
	recs, err := runfolder.ReadProbe(dir)
	if err != nil {
		t.Fatal(err)
	}
	compiles, pids := 0, map[int]bool{}
	for _, r := range recs {
		if r.Event == "compile" {
			compiles++
			pids[r.PID] = true
		}
	}
	s, err := Logs([]string{dir}, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sm := s.Ledger.Summary
	if compiles != 12 || sm.CompileRequests != compiles || sm.Compilations != compiles || sm.Recompilations != 0 || sm.AfterWarmup != 0 {
		t.Errorf("probe: %d compilations; report: %d requests, %d compilations, %d recompilations, %d after warm-up",
			compiles, sm.CompileRequests, sm.Compilations, sm.Recompilations, sm.AfterWarmup)
	}
	if s.Verdict == nil || s.Verdict.Recompile != 0 {
		t.Errorf("the verdict counts compile time as compiling again: %+v", s.Verdict)
	}
	if got := len(s.Ledger.Procs); got != len(pids) {
		t.Errorf("%d processes, want %d", got, len(pids))
	}
	if s.Job != nil { // workers a program started are no launcher's ranks: no departures, no reference group
		t.Errorf("the workers read as a job's %d ranks", len(s.Job.Ranks))
	}
	for _, p := range s.Ledger.Procs {
		if p.Compilations != 3 || !strings.Contains(p.Name, "[pid ") {
			t.Errorf("process %s: %d compilations, want 3", p.Name, p.Compilations)
		}
	}
	for _, m := range s.Ledger.Modules {
		if m.Compilations != 4 || m.Recompiled {
			t.Errorf("%s: %d compilations (recompiled %v), want 4, one per worker", m.Name, m.Compilations, m.Recompiled)
		}
		for _, u := range m.Units {
			// The probe's line of each compilation, its own process's: the worker's call.
			if !pids[u.PID] || u.Site.Line != 8 || !strings.HasSuffix(u.Site.File, "workers.py") {
				t.Errorf("%s at %s:%d: pid %d, site %+v", m.Name, u.File, u.Line, u.PID, u.Site)
			}
		}
	}
	// Its run.log given alone is read with the folder's probe too.
	if s, err := Logs([]string{filepath.Join(dir, "run.log")}, ledger.ReadOptions{}); err != nil || s.Ledger.Summary.Compilations != compiles ||
		len(s.Ledger.Procs) != len(pids) {
		t.Errorf("run.log alone: %v, %d compilations in %d processes", err, s.Ledger.Summary.Compilations, len(s.Ledger.Procs))
	}
	m, err := runfolder.ReadManifest(filepath.Join(dir, runfolder.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Folder(dir, m, RunOptions{}) // recomp run's own report
	if err != nil {
		t.Fatal(err)
	}
	if sm := r.Scan.Ledger.Summary; sm.Compilations != compiles || sm.Recompilations != 0 {
		t.Errorf("recomp run's report: %d compilations, %d recompilations", sm.Compilations, sm.Recompilations)
	}
}

// recomp run's live lines read the spawn workers' run.log as it is written, with the probe's
// records as the probe writes them: each worker is its own process there too, so no worker's
// first compilation is said (or stopped on) as a recompilation, and the live ledger's account
// at the end is the report's. Without the probe's records the same log reads as one process
// compiling again, which is what the live lines said before.
func TestSpawnWorkersLive(t *testing.T) {
	dir := filepath.Join("testdata", "spawn-workers")
	data, err := os.ReadFile(filepath.Join(dir, runfolder.LogName))
	if err != nil {
		t.Fatal(err)
	}
	feed := func(withProbe bool) (late int, rep *ledger.Report) {
		opt := ledger.LiveOptions{Name: runfolder.LogName}
		if withProbe {
			var stop func()
			opt.Stages, stop = LiveStages(dir)
			defer stop()
		}
		lv := ledger.NewLive(opt)
		for off := 0; off < len(data); off += 512 {
			lv.Write(data[off:min(off+512, len(data))])
			for _, u := range lv.Compiled() {
				if u.AfterWarmup {
					late++
				}
			}
		}
		rep = lv.Close()
		for _, u := range lv.Compiled() {
			if u.AfterWarmup {
				late++
			}
		}
		return late, rep
	}
	late, rep := feed(true)
	if sm := rep.Summary; late != 0 || sm.Compilations != 12 || sm.Recompilations != 0 || sm.AfterWarmup != 0 {
		t.Errorf("with the probe: %d live compilations after warm-up; %d compilations, %d recompilations, %d after warm-up",
			late, sm.Compilations, sm.Recompilations, sm.AfterWarmup)
	}
	if late, rep := feed(false); late == 0 && rep.Summary.Recompilations == 0 {
		t.Errorf("without the probe the workers' log read as no recompilation: the test shows nothing")
	}
}

// A real run of recomp run (testdata/keras-predict: its prog.py, Keras 3.15 on TF 2.21, CPU):
// fit on 256 samples in batches of 64, evaluate on 100 (64 + 36), predict on 488 (256 + 232).
// Keras traces its predict step for 256 rows and again, relaxed, for 232: two traced functions
// that the log names apart. They are one step compiled again, with the sizes, not two programs
// each compiled once; the test step under evaluate is the evaluation's.
func TestKerasPredictTailIsOneStep(t *testing.T) {
	s, err := Logs([]string{filepath.Join("testdata", "keras-predict")}, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	roles := map[string]verdict.Verdict{}
	for _, v := range s.Verdict.Verdicts {
		roles[v.Role] = v
	}
	p, ok := roles["predict step"]
	if !ok || p.Compilations != 2 || p.AfterWarmup != 1 || len(p.Causes) == 0 || p.Causes[0].Kind != "batch_size" ||
		p.Sizes == nil || !slices.Equal(p.Sizes.Seen, []int{256, 232}) || p.Sizes.Samples != 488 || p.FrontEnd != "keras" {
		t.Errorf("the predict step: %+v (verdicts %+v)", p, s.Verdict.Verdicts)
	}
	if strings.Contains(p.Action, "drop_remainder") {
		t.Errorf("predict is told to drop samples: %s", p.Action)
	}
	e, ok := roles["test step (evaluate)"]
	if !ok || e.Compilations != 2 || e.Sizes == nil || !slices.Equal(e.Sizes.Seen, []int{64, 36}) || strings.Contains(e.Action, "drop_remainder") {
		t.Errorf("the evaluate step: %+v", e)
	}
	if n := s.Ledger.Summary.Recompilations; n != 2 {
		t.Errorf("%d recompilations, want 2 (the evaluate and the predict tails)", n)
	}
}

// A real run of recomp run (testdata/keras-evaluate: its prog.py, Keras 3.15 on TF 2.21, CPU):
// fit with validation data in batches of 64, then evaluate of the same data in batches of 32.
// Keras traces the test step anew for evaluate, so the log names the two compilations apart; they
// are one model's test step (the probe names the model of each call) compiled again for another
// batch size, not a last partial batch.
func TestKerasEvaluateOtherBatchIsOneStep(t *testing.T) {
	s, err := Logs([]string{filepath.Join("testdata", "keras-evaluate")}, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Verdict.Verdicts) != 1 {
		t.Fatalf("verdicts %+v, want the test step's", s.Verdict.Verdicts)
	}
	v := s.Verdict.Verdicts[0]
	// fit's validation (an evaluate the probe saw inside fit) at 64, then evaluate at 32
	if v.Role != "test step (validation in fit, and evaluate)" || v.Compilations != 2 || v.Sizes == nil || v.Sizes.Pattern != "calls" ||
		!strings.Contains(v.Action, "batch sizes 32 and 64") || strings.Contains(v.Action, "last batch") || strings.Contains(v.Action, "drop_remainder") {
		t.Errorf("the test step: %+v", v)
	}
}

// TestKerasJAXDumpAloneAdvisesItsStep: with no log, a Keras-on-JAX dump says its steps by the source
// files its modules list (Keras's JAX trainer): the train step may drop its last partial batch, the
// validation step keeps every sample, and neither is told about tf.data.
func TestKerasJAXDumpAloneAdvisesItsStep(t *testing.T) {
	d, err := Dump(filepath.Join("..", "testdata", "runs", "keras-jax", "fit-partial", "dump"), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"jit_train_step": "drop its last partial batch", "jit_test_step": "do not drop evaluation data"}
	for _, p := range d.Pairs {
		if p.Result == nil || len(p.Result.Causes) == 0 {
			continue
		}
		adv := p.Result.Causes[0].Advice
		if w, ok := want[p.B.Family]; !ok || !strings.Contains(adv, w) || strings.Contains(adv, "tf.data") {
			t.Errorf("%s: advice %q, want %q and no tf.data", p.B.Family, adv, w)
		}
		delete(want, p.B.Family)
	}
	if len(want) > 0 {
		t.Errorf("not compared: %v", want)
	}
}

// The answer at the end of recomp run says what scan of the same folder says: a torch run's
// folder holds run.log and dynamo's trace of the same compilations, and both read them together,
// each compilation once, with the trace's seconds and the program's own line.
func TestFolderReadsTheTraceAsScanDoes(t *testing.T) {
	dir := "../testdata/runs/torch-2.9/under-run"
	m, err := runfolder.ReadManifest(filepath.Join(dir, runfolder.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Folder(dir, m, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := ReadScan([]string{dir}, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	programs := func(l *ledger.Report) (out []string) {
		for _, mod := range l.Modules {
			out = append(out, fmt.Sprintf("%s %d %s", mod.Family, mod.Compilations, mod.CompileTime))
		}
		return out
	}
	if a, b := programs(r.Scan.Ledger), programs(s.Ledger); !slices.Equal(a, b) || len(a) == 0 {
		t.Errorf("recomp run's answer reads %v, scan of the folder %v", a, b)
	}
}

// A real run (testdata/spawn-recompile, made by testdata/runs/gen/spawn-run.sh spawn_recompile.py: JAX 0.12
// on CPU): two spawn workers each compile step for 8 rows and again for 9 or 10, into one
// run.log; XLA numbers both workers' modules from 0 and each dumps into dump/pid-<its id>/.
// Each worker recompiled once, and explain compares each worker's two modules, never one
// worker's with the other's; the workers are no job's ranks.
func TestSpawnRecompile(t *testing.T) {
	dir := filepath.Join("testdata", "spawn-recompile")
	s, err := Logs([]string{dir}, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sm := s.Ledger.Summary; sm.Compilations != 4 || sm.Recompilations != 2 || len(s.Ledger.Procs) != 2 || s.Job != nil {
		t.Errorf("%d compilations, %d recompilations, %d processes, job %v", sm.Compilations, sm.Recompilations, len(s.Ledger.Procs), s.Job != nil)
	}
	if vs := s.Verdict.Verdicts; len(vs) != 1 || len(vs[0].Causes) == 0 || vs[0].Causes[0].Kind != "batch_size" || vs[0].Repeated != 0 {
		t.Errorf("verdicts %+v", vs)
	}
	for _, path := range []string{dir, filepath.Join(dir, runfolder.DumpName)} { // explain RUN, and explain RUN/dump --log RUN/run.log
		var logs []string
		if path != dir {
			logs = []string{filepath.Join(dir, runfolder.LogName)}
		}
		d, err := Dump(path, logs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if fams := families(d); fams != "jit_step: 4 (4)" {
			t.Errorf("%s: families %s", path, fams)
		}
		if d.Verdict == nil || d.Verdict.Processes != 2 {
			t.Errorf("%s: the log read as one process: %+v", path, d.Verdict)
		}
		var got []string
		for _, p := range d.Pairs {
			a, b := filepath.Base(filepath.Dir(p.A.Path)), filepath.Base(filepath.Dir(p.B.Path))
			if a != b || !strings.HasPrefix(a, "pid-") || p.Result.Causes[0].Kind != "batch_size" {
				t.Errorf("%s: compared %s with %s: %+v", path, p.A.Path, p.B.Path, p.Result.Causes)
			}
			got = append(got, p.Result.Causes[0].Summary)
		}
		if len(got) != 2 || !strings.Contains(strings.Join(got, " "), "8 → 9") || !strings.Contains(strings.Join(got, " "), "8 → 10") {
			t.Errorf("%s: pairs %q", path, got)
		}
	}
	// Each module is linked with its own worker's compilation, in its order.
	dump, err := Load(filepath.Join(dir, runfolder.DumpName), Options{})
	if err != nil {
		t.Fatal(err)
	}
	links := LinkDumps(dump, s.Ledger)
	for _, f := range dump.Files {
		u := links[f]
		if u == nil || f.PID == 0 || u.PID != f.PID || strings.Contains(u.Signature, "[8,4]") != (f.ID == 0) {
			t.Errorf("%s linked with %+v", f.Path, u)
		}
	}
}

// The same run, had the user's XLA_FLAGS named a dump folder of their own (recomp leaves it as
// it is, and both workers dumped into it): the scan warns that the processes' files overwrite
// each other's. A folder of recomp's own dump says nothing.
func TestSharedUserDumpWarns(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{runfolder.LogName, runfolder.ProbeName, runfolder.ManifestName} {
		b, err := os.ReadFile(filepath.Join("testdata", "spawn-recompile", name))
		if err != nil {
			t.Fatal(err)
		}
		if name == runfolder.ManifestName {
			b = []byte(strings.Replace(string(b), "{", `{"dump_dir": "/tmp/mine",`, 1))
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	warned := func(path string) bool {
		s, err := Logs([]string{path}, ledger.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range s.Inputs[0].Warnings {
			if strings.Contains(w.Message, "2 processes compiled and dumped into your own dump folder /tmp/mine") {
				return true
			}
		}
		return false
	}
	if !warned(dir) {
		t.Error("no warning of two processes dumping into the user's folder")
	}
	if warned(filepath.Join("testdata", "spawn-recompile")) {
		t.Error("a warning for recomp's own dump")
	}
}
