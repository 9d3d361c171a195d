package logscan_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/internal/corpus"
	"github.com/recomp/recomp/internal/scantest"
	"github.com/recomp/recomp/logscan"
)

// Lines rendered from the format strings in ../shared/docs/log-formats.md.
func TestLayoutsAndKinds(t *testing.T) {
	const tf = "2021-03-10 12:34:56.789012: I tensorflow/compiler/plugin/poplar/driver/poplar_compiler.cc:1487] "
	for _, c := range []struct {
		line     string
		kind     logscan.Kind
		producer string
		module   string
		hash     string
		path     string
		dur      time.Duration
		stamp    string
	}{
		{tf + "Begin XLA compilation: cluster_3  (Hash: 0x1b2c3d4e5f607182) for ordinal  0", logscan.CompileRequest, "tf-ipu", "cluster_3", "0x1b2c3d4e5f607182", "", 0, "2021-03-10 12:34:56.789012"},
		{"2021-03-10 12:34:56.789012: I   12345 tensorflow/compiler/plugin/poplar/driver/poplar_compiler.cc:1748] End XLA compilation: cluster_3 (Hash: 0x1b2c3d4e5f607182)", logscan.CompileEnd, "tf-ipu", "cluster_3", "0x1b2c3d4e5f607182", "", 0, "2021-03-10 12:34:56.789012"},
		{tf + "Loaded cluster_3 from /tmp/cache/9a8b7c6d5e4f3a2.poplar_exec", logscan.CacheHit, "tf-ipu", "cluster_3", "", "/tmp/cache/9a8b7c6d5e4f3a2.poplar_exec", 0, ""},
		{tf + "Loaded old_mod from /tmp/c/abc.xla_engine", logscan.CacheHit, "tf-ipu", "old_mod", "", "/tmp/c/abc.xla_engine", 0, ""},
		{tf + "Couldn't find /tmp/cache/9a8b7c6d5e4f3a2.poplar_exec in executable cache", logscan.CacheMiss, "tf-ipu", "", "", "/tmp/cache/9a8b7c6d5e4f3a2.poplar_exec", 0, ""},
		{tf + "A pre-compiled Poplar program has been saved to /tmp/executables/277a08fe4c20b50.poplar_exec", logscan.CacheWrite, "tf-ipu", "", "", "/tmp/executables/277a08fe4c20b50.poplar_exec", 0, ""},
		{tf + "Begin compiling Poplar engine cluster_3", logscan.CompileBegin, "tf-ipu", "cluster_3", "", "", 0, ""},
		{tf + "End compiling Poplar engine.", logscan.CompileFinished, "tf-ipu", "", "", "", 0, ""},
		{tf + "Module cluster_3 has not been compiled yet (Hash: 0xabc).", logscan.CacheMiss, "tf-ipu", "cluster_3", "0xabc", "", 0, ""},
		{tf + "Skip engine compilation - output is constant.", logscan.CompileSkipped, "tf-ipu", "", "", "", 0, ""},
		{"Compiling module jit_ipu_intor1e.0:", logscan.CompileBegin, "tf-ipu", "jit_ipu_intor1e.0", "", "", 0, ""},
		{"\x1b[2K[##################################################] 100% Compilation Finished [Elapsed: 00:04:04.2]", logscan.CompileFinished, "tf-ipu", "", "", "", 4*time.Minute + 4200*time.Millisecond, ""},
		{"09:38:52.878 15288 PO:ENGINE   [I]     Starting phase: graphConstruction", logscan.CompileBegin, "poplar", "", "", "", 0, "09:38:52.878"},
		{"2024-04-08T09:27:07.604347Z PO:ENGINE   791072.791072 I: Ending phase: Loading executable (duration 607 ms; diff RSS: 0.586426 MB; total RSS: 2410.5 MB)", logscan.ExecutableLoad, "poplar", "", "", "", 607 * time.Millisecond, "2024-04-08T09:27:07.604347Z"},
		{"    Ending phase: Loading executable (duration 607 ms; diff RSS: 0.586426 MB)", logscan.ExecutableLoad, "poplar", "", "", "", 607 * time.Millisecond, ""},
		{"09:38:52.889 15288 PO:ENGINE   [I]       Ending phase: Create adjacencies (duration 30 ms; diff RSS: 16.4961 MB; total RSS: 2440.24 MB)", logscan.PhaseEnd, "poplar", "", "", "", 30 * time.Millisecond, ""},
		{"2023-03-13T10:20:56.031453Z popart:devicex 19074.19074 I: Starting compilation", logscan.CompileBegin, "popart", "", "", "", 0, ""},
		{"[2019-10-16 13:55:05.359] [popart:devicex] [info] Starting Engine compilation", logscan.CompileBegin, "popart", "", "", "", 0, "2019-10-16 13:55:05.359"},
		{"2023-03-13T10:20:56.031453Z popart:devicex 19074.19074 I: Graph compiled", logscan.CompileFinished, "popart", "", "", "", 0, ""},
		{"2023-03-13T10:20:56.031453Z popart:session 19074.19074 I: Loading serialized PopART executable from /tmp/exe/123.popef", logscan.CacheHit, "popart", "", "", "/tmp/exe/123.popef", 0, ""},
		{"2023-03-13T10:20:56.031453Z popart:devicex 19074.19074 I: Saving serialized Executablex to /tmp/exe/123.popef", logscan.CacheWrite, "popart", "", "", "/tmp/exe/123.popef", 0, ""},
		{"2023-03-13T10:20:56.031453Z popart:devicex 19074.19074 I: Engine loaded", logscan.ExecutableLoad, "popart", "", "", "", 0, ""},
		{"2023-08-22 23:35:18.532415: I tensorflow/compiler/jit/xla_compilation_cache.cc:376] Compiled cluster using XLA!  This line is logged at most once for the lifetime of the process.", logscan.ClusterCompiled, "tf", "", "", "", 0, ""},
		{"[1,0]<stderr>:2023-08-22T23:49:40.103248Z PO:ENGINE   3556102.3556102 I: Starting phase: graphConstruction", logscan.CompileBegin, "poplar", "", "", "", 0, ""},
		{"I0000 00:00:1692408336.588809 3320398 poplar_compiler.cc:78] Begin XLA compilation: m.1  (Hash: 0x1) for ordinal  0", logscan.CompileRequest, "xla", "m.1", "0x1", "", 0, "0000 00:00:1692408336.588809"},
		{"Begin XLA compilation: bare_module  (Hash: 0xff) for ordinal  0\r", logscan.CompileRequest, "tf-ipu", "bare_module", "0xff", "", 0, ""},
	} {
		ev := scantest.One(t, c.line)
		if ev.Kind != c.kind || string(ev.Producer) != c.producer || ev.Module != c.module || ev.Hash != c.hash || ev.Path != c.path || ev.Duration != c.dur {
			t.Errorf("%q:\n got %+v", c.line, ev)
		}
		if c.stamp != "" && ev.Stamp != c.stamp {
			t.Errorf("%q: stamp %q, want %q", c.line, ev.Stamp, c.stamp)
		}
		if ev.Line != 1 || ev.File != "t.log" {
			t.Errorf("%q: position %s:%d", c.line, ev.File, ev.Line)
		}
	}
}

func TestAbslTimeBeforeInitializeLog(t *testing.T) {
	ev := scantest.One(t, "I0000 00:00:1692408336.588809 3320398 poplar_compiler.cc:78] Begin XLA compilation: m.1  (Hash: 0x1) for ordinal  0")
	if !ev.DateKnown || ev.Time.Format(time.RFC3339Nano) != "2023-08-19T01:25:36.588809Z" {
		t.Errorf("time = %v (date known %v)", ev.Time, ev.DateKnown)
	}
}

func TestNoiseIsNotAnEvent(t *testing.T) {
	noise := strings.Join([]string{
		"2023-08-22 23:35:07.087287: I tensorflow/compiler/mlir/mlir_graph_optimization_pass.cc:185] None of the MLIR Optimization Passes are enabled (registered 2)",
		"2024-05-02 10:01:30.800000: I tensorflow/compiler/plugin/poplar/driver/poplar_executor.cc:2201] Executing on Poplar stream ordinal 0 of type ipu",
		"2020-03-13 16:00:13 INFO Compiled. Duration 214.1097915172577 seconds",
		"Epochs:   0%|          | 0/10 [00:00<?, ?it/s]",
	}, "\n") + "\n"
	evs, st := scantest.Scan(t, noise, logscan.Options{})
	if len(evs) != 0 {
		t.Errorf("noise gave events: %+v", evs)
	}
	if st.Lines != 4 {
		t.Errorf("lines = %d", st.Lines)
	}
}

func TestGluedRecordsAndBars(t *testing.T) {
	// A tqdm bar with a PopART record glued on, then \r-redrawn progress, then mpirun tags.
	text := "Graph compilation:   4%|▍         | 4/100 [00:00<00:04]2024-04-08T09:05:25.096615Z PL:POPLIN    773471.773471 W: deprecated\r" +
		"Graph compilation:  50%|█████     | 50/100 [00:07<00:07]\r" +
		"Graph compilation: 100%|██████████| 100/100 [00:14<00:00]2024-04-08T09:05:39.1Z popart:session 1.1 W: x\n" +
		"Graph compilation:  98%|█████████▊| 98/100 [00:14<00:01]\n" + // a stale redraw
		"Graph compilation: 100%|██████████| 100/100 [00:00<00:00]\n" + // served from the cache
		"2023-03-13T10:20:56.031453Z popart:devicex 19074.19074 I: Engine loaded2023-03-13T10:20:57.031453Z popart:devicex 19074.19074 I: Engine loaded\r\n"
	evs, st := scantest.Scan(t, text, logscan.Options{})
	var got []string
	for _, ev := range evs {
		got = append(got, fmt.Sprintf("%d:%s:%s", ev.Line, ev.Kind, ev.Duration))
	}
	want := "1:compile_begin:0s 1:compile_finished:14s 3:cache_hit:0s 4:executable_load:0s 4:executable_load:0s"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
	if st.Lines != 4 {
		t.Errorf("lines = %d", st.Lines)
	}
}

// Under recomp run a terminal's line starts with recomp's own timestamp, then a progress bar's
// frames (split at \r), the last one with a TF record glued after a digit: the record is found
// with its own time, and a record in a later piece without a time of its own takes the line's.
func TestGluedAfterABarUnderRecompRun(t *testing.T) {
	text := "2026-11-24T10:04:34.138790896Z \r1/4 ━━━ 1s 335ms/step - loss: 1.1589I0000 00:00:1795514674.274491   22776 device_compilation_profiler.cc:113] " +
		"Compiled __inference_one_step_on_data_270 2 times, compile time: 131421 us, cumulative: 312676 us (0 us / 313 ms)\r\n" +
		"2026-11-24T10:04:35.5Z \r2/4 ━━━ loss: 0.5\rjax._src.dispatch: Finished XLA compilation of jit(f) in 0.1 sec\n"
	evs, _ := scantest.Scan(t, text, logscan.Options{})
	var got []string
	for _, ev := range evs {
		got = append(got, fmt.Sprintf("%d:%s:%s:%v", ev.Line, ev.Kind, ev.Time.Format(time.RFC3339Nano), ev.DateKnown))
	}
	// the first frame is a Keras bar (logscan.Progress, with the line's time); the second, with no
	// time per step, is no bar Keras draws
	want := "1:progress:2026-11-24T10:04:34.138790896Z:true 1:compile_finished:2026-11-24T10:04:34.274491Z:true 2:request_done:2026-11-24T10:04:35.5Z:true"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
}

func TestLongLinesStayBounded(t *testing.T) {
	// A 3 MB line (an HLO module dumped through VLOG) between two events, read with a 64 KiB
	// buffer: both events are found with their line numbers, and a warning says what happened.
	var b strings.Builder
	b.WriteString("Compiling module first:\n")
	b.WriteString("2021-03-10 12:34:56.789012: I tensorflow/compiler/xla/service/dump.cc:1] ")
	b.WriteString(strings.Repeat("HloModule x, entry_computation_layout={f32[2]} ", 3<<20/48))
	b.WriteString("\nCompiling module second:\n")
	evs, st := scantest.Scan(t, b.String(), logscan.Options{BufSize: 64 << 10})
	if len(evs) != 2 || evs[0].Module != "first" || evs[1].Module != "second" || evs[1].Line != 3 {
		t.Fatalf("events %+v", evs)
	}
	if st.WarningCount != 1 || !strings.Contains(st.Warnings[0].Message, "longer than") || st.Warnings[0].Line != 2 {
		t.Errorf("warnings %+v", st.Warnings)
	}
	if st.Lines != 3 {
		t.Errorf("lines = %d", st.Lines)
	}
}

func TestBadBytesAreWarnings(t *testing.T) {
	text := "garbage\x00\x01\x02\nCompiling module m\xff\xfe:\nlast line without newline"
	evs, st := scantest.Scan(t, text, logscan.Options{})
	if len(evs) != 1 || evs[0].Line != 2 {
		t.Fatalf("events %+v", evs)
	}
	var msgs []string
	for _, w := range st.Warnings {
		msgs = append(msgs, fmt.Sprintf("%d:%s", w.Line, w.Message))
	}
	joined := strings.Join(msgs, "|")
	for _, want := range []string{"1:binary data", "2:invalid UTF-8", "3:input does not end with a newline"} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings %q lack %q", joined, want)
		}
	}
	if st.Lines != 3 {
		t.Errorf("lines = %d", st.Lines)
	}
}

func TestMarker(t *testing.T) {
	text := "Compiling module a:\nEpoch 1/2\nCompiling module b:\nEpoch 2/2\nCompiling module c:\nEpoch 2/2 again\n"
	evs, _ := scantest.Scan(t, text, logscan.Options{Marker: mustLineRegexp(`Epoch 2/`)})
	var got []string
	for _, ev := range evs {
		got = append(got, fmt.Sprintf("%s@%d", ev.Kind, ev.Line))
	}
	// Keras's epoch lines are read too ("Epoch 2/2 again" is none)
	if want := "compile_begin@1 progress@2 compile_begin@3 marker@4 progress@4 compile_begin@5"; strings.Join(got, " ") != want {
		t.Errorf("got %s, want %s", strings.Join(got, " "), want)
	}
}

type errReader struct{ n int }

func (e *errReader) Read(p []byte) (int, error) {
	if e.n == 0 {
		e.n++
		return copy(p, "Compiling module a:\n"), nil
	}
	return 0, io.ErrUnexpectedEOF
}

func TestReadErrorKeepsEvents(t *testing.T) {
	s := logscan.NewScanner(&errReader{}, "trunc.gz", logscan.Options{Grammar: frameworks.Grammar()})
	n := 0
	for s.Scan() {
		n++
	}
	if n != 1 || s.Err() == nil || !strings.Contains(s.Err().Error(), "trunc.gz") {
		t.Errorf("events %d, err %v", n, s.Err())
	}
}

func TestCorpusLogsScan(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpus.Dir(t, "corpus/logs"), "*.log"))
	if len(files) == 0 {
		t.Fatal("no logs in the corpus")
	}
	got := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		evs, _ := scantest.Scan(t, string(b), logscan.Options{})
		counts := map[logscan.Kind]int{}
		for _, ev := range evs {
			counts[ev.Kind]++
		}
		got[filepath.Base(f)] = fmt.Sprintf("begin=%d hit=%d cluster=%d load=%d",
			counts[logscan.CompileBegin], counts[logscan.CacheHit], counts[logscan.ClusterCompiled], counts[logscan.ExecutableLoad])
	}
	// What a person reading these excerpts counts (see corpus/logs/MANIFEST.md).
	for f, want := range map[string]string{
		"tf2-ipu-keras-resnet50-sdk30.log":   "begin=2 hit=0 cluster=1 load=0", // two progress-bar compiles
		"jax-ipu-progress-bars.log":          "begin=2 hit=0 cluster=0 load=0",
		"poptorch-first-run-compile.log":     "begin=2 hit=0 cluster=0 load=0", // two climbing bars
		"poptorch-mnist-bar-jumps.log":       "begin=0 hit=2 cluster=0 load=0", // two bars that jump: cache hits
		"poptorch-two-graphs-new-layout.log": "begin=2 hit=0 cluster=0 load=0",
		"tf2-ipu-mnist-poplar33.log":         "begin=0 hit=0 cluster=1 load=0",
		"popart-doc-new-layout.log":          "begin=0 hit=0 cluster=0 load=0",
	} {
		if got[f] != want {
			t.Errorf("%s: %s, want %s", f, got[f], want)
		}
	}
}

func FuzzScanner(f *testing.F) {
	files, _ := filepath.Glob("../../shared/corpus/logs/*.log")
	for _, file := range files {
		b, _ := os.ReadFile(file)
		f.Add(b, 0)
	}
	f.Add([]byte("Begin XLA compilation: m  (Hash: 0x1) for ordinal  0\r\nGraph compilation:  5%|| 5/100 [00:01<00:09]\x00\xff"), 7)
	f.Add([]byte("TRACING CACHE MISS at /tmp/train.py:47:12 (main):\n  for train_step defined at /tmp/train.py:39\n"+
		"Compilation Analysis: Compilation Cause\nCompilation Analysis:   user mark_step\nCompilation Analysis:   Graph Hash: abc\n"), 3)
	for _, run := range []string{"jax-0.12/partial-batch/run.log", "jax-0.12/persistent-cache/run1.log", "tf-2.21/varying-shapes/run.log",
		"jax-0.12/prefix-mpirun/run.log", "jax-0.4/prefix-torchrun/run.log", "torch-xla-2.9/batch-size/run.log",
		"jax-0.12/nnx-attribute/run.log"} { // nnx: an explanation past the lines a held record keeps
		b, err := os.ReadFile("../testdata/runs/" + run)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, 5)
	}
	f.Add([]byte("[rank1]:TRACING CACHE MISS at a.py:1 (f):\n[rank0]:Epoch 2/3\n[rank1]:  for f defined at a.py:1\n"+
		"[1,3]<stderr>:Compiling jit(f) with global shapes and types (x). Argument mapping: (y).\n7: Epoch 2/3\r\n"), 0x101)
	// PyTorch/XLA's metrics report glued onto output, dynamo's records in each release's layout,
	// the XRT-era compile trace and AWS Neuron's wrapper.
	f.Add([]byte("loss 0.3[MetricsData; step=4]Metric: CompileTime\n  TotalSamples: 4\n  Accumulator: 08s849ms\nCounter: CachedCompile\n  Value: 2\n"+
		"[2023-10-10 01:56:07,749] torch._dynamo.convert_frame.__recompiles: [DEBUG] ('Recompiling function fn in /a/t.py:1354', \"triggered by the following guard failure: L['a'] == 0\")\n"+
		"V0410 16:18:11.049000 1 torch/_dynamo/guards.py:2199] [__recompiles] Recompiling function fn in /a/g.py:3\n"+
		"V0410 16:18:11.049000 1 torch/_dynamo/guards.py:2199] [__recompiles]     - ___check_global_state()\n"+
		"W0605 17:24:08.994000 1 torch/_dynamo/convert_frame.py:744] [4/8] torch._dynamo hit config.cache_size_limit (8)\n"+
		"W0605 17:24:08.994000 1 torch/_dynamo/convert_frame.py:744] [4/8]    function: 'forward' ([redacted]:149)\n"+
		"2021-01-27 16:59:55.810791: I   23989 torch_xla/csrc/tensor.cpp:1528] Compiling IR graph hash 5f24 on device TPU:3 ...\n"+
		"2024-04-12 07:13:06.000297:  271334  INFO ||NEURON_CC_WRAPPER||: Call compiler with cmd: neuronx-cc compile --framework=XLA /t/model.MODULE_1+d4.hlo_module.pb\n.\nCompiler status PASS\n"+
		"x/MODULE_9+3/model.done not found in r/c: the corresponding graph will be recompiled.\n"+
		"2023-07-07 13:56:06.000202: INFO ||NCC_WRAPPER||: Compile cache path: /tmp/tmpd29vse1h/c\n"), 9)
	// XLA's alarm in both layouts with its end, vLLM's precompile loop, a wrapped JAX record.
	f.Add([]byte("E0319 07:30:02.045318 1 slow_operation_alarm.cc:73] \n****\n[Compiling module m.1] Very slow compile? If\n****\n"+
		"E0319 07:32:14.895694 1 slow_operation_alarm.cc:140] The operation took 2m12.85s\n\n****\n[Compiling module m.1] Very slow compile? If\n"+
		"Very slow compile?  If you want\nCompiling module jit_f.3\n****\n"), 9)
	f.Add([]byte("INFO [tpu_model_runner.py:769] Compiling the model with different input shapes.\n  -- num_tokens: 16\nbatch_size: 1, seq_len: 16\n"+
		"Compilation finished in in 44.09 [secs].\nNot writing persistent cache\nentry for 'jit_f' because it took < 1.00 seconds to\ncompile (0.02s)\n"), 4)
	// Keras's progress lines: verbose=1 redrawn with backspaces and carriage returns in ANSI colours,
	// a TF record glued after a state, "Unknown" steps, Keras 2's bar, verbose=2, predict's bar
	f.Add([]byte("Epoch 1/2\n\x1b[1m1/4\x1b[0m \x1b[32m━━━━━\x1b[0m\x1b[37m━━━━━━━━━━━━━━━\x1b[0m \x1b[1m1s\x1b[0m 2s/step - loss: 0.6931"+
		"I0000 00:00:1795505217.198947     923 device_compiler.h:551] Instantly compiling for signature: __inference_one_step_on_data_272\n"+
		"\b\b\b\b\r\x1b[1m4/4\x1b[0m \x1b[32m━━━━━━━━━━━━━━━━━━━━\x1b[0m \x1b[1m0s\x1b[0m 12ms/step - loss: 0.69 - val_loss: 0.70  \n"+
		"      7/Unknown 3s 10ms/step - loss: 0.5\n4/4 [==============================] - 0s 12ms/step - loss: 0.6931\n"+
		"Epoch 2/2\n5/5 - 0s - 13ms/step - loss: 0.2780 - val_loss: 0.1718\n3/3 ━━━━━━━━━━━━━━━━━━━━ 0s 3ms/step\nEpoch 99999999999999/2\n"), 0x40)
	for _, run := range []string{"tf-2.21/keras-fit-validation/run.log", "keras-jax/nnx-steps/run.log"} {
		b, err := os.ReadFile("../testdata/runs/" + run)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, 3)
	}
	marker := mustLineRegexp(`^Epoch 2/`)
	f.Fuzz(func(t *testing.T, data []byte, small int) {
		size := 64 + (small&0xff)*8
		opt := logscan.Options{BufSize: size, Grammar: frameworks.Grammar()}
		if small&0x100 != 0 {
			opt.Marker = marker
		}
		s := logscan.NewScanner(bytes.NewReader(data), "fuzz", opt)
		n := 0
		for s.Scan() {
			ev := s.Event()
			if ev.Line < 1 {
				t.Fatalf("event line %d", ev.Line)
			}
			if strings.Trim(ev.Rank, "0123456789") != "" {
				t.Fatalf("rank %q", ev.Rank)
			}
			n++
		}
		st := s.Stats()
		if st.Bytes != int64(len(data)) {
			t.Fatalf("read %d of %d bytes", st.Bytes, len(data))
		}
		if want := bytes.Count(data, []byte{'\n'}); st.Lines < want || st.Lines > want+1 {
			t.Fatalf("lines %d, newlines %d", st.Lines, want)
		}
		if len(st.Warnings) > logscan.MaxWarnings {
			t.Fatalf("%d warnings kept", len(st.Warnings))
		}
	})
}

// noisyLog is a TF VLOG-style log where 1 line in 500 matters.
func noisyLog(size int) []byte {
	var b bytes.Buffer
	logscan.WriteSynthetic(&b, logscan.Synthetic{Size: int64(size)})
	return b.Bytes()
}

func BenchmarkScanNoisyLog(b *testing.B) { benchmarkScan(b, noisyLog(64<<20)) }

// BenchmarkScanDenseLog is a TF VLOG where 1 line in 20 matters: the time goes to the candidate
// lines' parsing, not to the prefilter.
func BenchmarkScanDenseLog(b *testing.B) {
	var buf bytes.Buffer
	logscan.WriteSynthetic(&buf, logscan.Synthetic{Size: 16 << 20, Every: 20})
	benchmarkScan(b, buf.Bytes())
}

// BenchmarkScanDenseLogReadAhead is BenchmarkScanDenseLog with Options.ReadAhead (reading and
// prefiltering in a goroutine of their own, as recomp scan does with more than one CPU).
func BenchmarkScanDenseLogReadAhead(b *testing.B) {
	var buf bytes.Buffer
	logscan.WriteSynthetic(&buf, logscan.Synthetic{Size: 16 << 20, Every: 20})
	benchmarkScanWith(b, buf.Bytes(), logscan.Options{ReadAhead: true})
}

func benchmarkScan(b *testing.B, data []byte) { benchmarkScanWith(b, data, logscan.Options{}) }

func benchmarkScanWith(b *testing.B, data []byte, opt logscan.Options) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	opt.Grammar = frameworks.Grammar()
	for b.Loop() {
		s := logscan.NewScanner(bytes.NewReader(data), "bench", opt)
		n := 0
		for s.Scan() {
			n++
		}
		if n == 0 {
			b.Fatal("no events")
		}
	}
}

func mustLineRegexp(expr string) *logscan.LineRegexp {
	re, err := logscan.NewLineRegexp(expr)
	if err != nil {
		panic(err)
	}
	return re
}

// A line that repeats a message head where a glued record could start (after a digit), over and
// over, is read in time linear in its length: each place is tried at most a few times per record,
// not once per occurrence (1 MB took minutes). A real record glued after the repeats is still
// found when it is among the first places tried.
func TestRepeatedHeadsStayLinear(t *testing.T) {
	text := "1Compiling 1Compiling Finished XLA compilation of jit(f) in 0.1 sec\n" +
		strings.Repeat("1Compiling ", 512<<10/len("1Compiling ")) + "\n"
	start := time.Now()
	evs, _ := scantest.Scan(t, text, logscan.Options{})
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("scanning a 512 KB line of repeated heads took %v", d)
	}
	var got []string
	for _, ev := range evs {
		got = append(got, fmt.Sprintf("%d:%s", ev.Line, ev.Kind))
	}
	if want := "1:request_done"; strings.Join(got, " ") != want {
		t.Errorf("got %s, want %s", strings.Join(got, " "), want)
	}
}

// The committed real runs (every stack, every logging layout) hold programs' own output beside
// the frameworks' records: none of it may be taken for a compile record recomp could not read,
// and every framework record in them is read.
func TestRealRunsHaveNoUnreadRecords(t *testing.T) {
	logs, _ := filepath.Glob("../testdata/runs/*/*/*.log")
	more, _ := filepath.Glob("../testdata/runs/*/*.log")
	logs = append(logs, more...)
	if len(logs) < 50 {
		t.Fatalf("only %d real runs found", len(logs))
	}
	for _, path := range logs {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// a run recomp run stopped: what the program printed after the stop (its
		// KeyboardInterrupt's traceback) is no record; recomp reads up to the stop line
		var m struct {
			StoppedLine int `json:"stopped_line"`
		}
		if mb, err := os.ReadFile(filepath.Join(filepath.Dir(path), "manifest.json")); err == nil && json.Unmarshal(mb, &m) == nil && m.StoppedLine > 0 {
			lines := strings.SplitAfter(string(b), "\n")
			b = []byte(strings.Join(lines[:min(m.StoppedLine, len(lines))], ""))
		}
		_, st := scantest.Scan(t, string(b), logscan.Options{})
		if st.Unread != 0 {
			t.Errorf("%s: %d unread lines: %+v", path, st.Unread, st.UnreadLines)
		}
	}
}

// A wording of each stack that recomp does not know (made up here: a release to come) is
// counted as an unread compile record, with its place and text, never read as nothing.
func TestNewWordingsAreUnread(t *testing.T) {
	for _, c := range []struct{ framework, line string }{
		{"jax", "WARNING:jax._src.interpreters.pxla:Compiling jit(train_step) on 8 devices, 3 arguments"},
		{"jax", "PERSISTENT COMPILATION CACHE HIT for 'jit_step' (key jit_step-00ff)"},
		{"jax", "TRACING CACHE HIT at /w/train.py:47 (main) after 2 retraces"},
		{"tf", "2026-01-02 10:00:00.000000: I tensorflow/compiler/jit/device_compiler.h:190] Compiling cluster_12 for signature fn[0](f32[8])"},
		{"tf", "W0102 10:00:00.000000 1 polymorphic_function.py:150] tf.function train_step was retraced 6 times in the last 10 calls"},
		{"ipu", "10:00:02.123 4242 PO:ENGINE   [I] Poplar engine compilation for graph 'main' took 31.2 s"},
		{"ipu", "[10:00:02.123] [poptorch:cpp] [info] PopTorch compiled the model in 12s"},
		{"xla", "2026-01-02 10:00:00.000000: E external/xla/xla/service/slow_operation_alarm.cc:90] [Compiling module jit_step.5] Slow compile alert: 2m"},
		{"torch", "[0/2] [__recompiles] Recompiling frame forward in /w/model.py:12 because a guard failed: L['x'].size()[0] == 16"},
		{"torch-xla", "Compilation Report: graph hash 1abebf43 compiled in 2.1s on device CPU:0"},
		{"wrappers", "INFO 01-02 10:00:00 [tpu_worker.py:301] Precompiled the sampler for 12 input shapes in 31.5 s"},
		{"neuron", "2026-01-02 10:00:00.000232:  4816  INFO ||NEURON_CC_WRAPPER||: Compiled MODULE_a7b0021f88c35fba5c31+39f12043 into /c/model.neff in 42 s"},
	} {
		evs, st := scantest.Scan(t, "Epoch 1\n"+c.line+"\nEpoch 2\n", logscan.Options{})
		if len(evs) != 0 || st.Unread != 1 || len(st.UnreadLines) != 1 || st.UnreadLines[0].Line != 2 || st.UnreadLines[0].Framework != c.framework ||
			!strings.Contains(c.line, st.UnreadLines[0].Text) {
			t.Errorf("%q: events %+v, unread %d %+v", c.line, evs, st.Unread, st.UnreadLines)
		}
	}
	// A program's own words about compiling are not a framework's record.
	for _, line := range []string{"Compiling the model...", "Model compiled in 3.2 s", "Recompiling assets (webpack)", "compiling 12 shaders for the renderer",
		"Compilation finished: 0 errors, 2 warnings"} {
		if _, st := scantest.Scan(t, line+"\n", logscan.Options{}); st.Unread != 0 {
			t.Errorf("%q counted as unread: %+v", line, st.UnreadLines)
		}
	}
}

// A new wording that holds no anchor of any rule (the prefilter never picks it: on the tree
// before the sweep, the JAX, TF, torch-xla, IPU, XLA and neuron lines below marked "sweep" were
// read as nothing; the others hold some anchor and check the same rule holds) is still found
// by the sweep for the vocabularies' short literals, after the warm-up of a log in today's
// wording, and counted unread with its place; prose and paths using the same words are not.
func TestNewWordingsWithoutAnchorsAreUnread(t *testing.T) {
	warm := "WARNING:jax._src.dispatch:Finished XLA compilation of jit(train_step) in 0.2 sec\nstep 1\nstep 2\n"
	// framework: whose vocabulary may claim the line (the first in the grammar's order does)
	for _, c := range []struct{ framework, line string }{
		{"jax", "Compiled jit(train_step) for f32[24,8] in 0.21 sec"}, // sweep
		{"jax", "I0102 10:00:00.000000 1 pxla.py:99] pjit train_step: compiling for 8 devices"},
		{"tf xla", "XLA cluster cluster_3 recompiled 5 times"}, // sweep
		{"tf xla", "2026-01-02 10:00:00.000000: I tensorflow/core/common_runtime/eager.cc:12] __inference_train_step_88 compiled with XLA in 0.3 s"},
		{"torch-xla", "SyncTensorsGraph 1abebf43 compiled again after step 4"},
		{"torch-xla", "[rank0]: torch_xla recompiled the IR graph (new shapes)"}, // sweep
		{"ipu", "Poplar finished compiling graph main in 31 s"},
		{"ipu", "Poplar graph main was recompiled (new tensor shapes)"}, // sweep
		{"ipu", "10:00:02.123 4242 PO:ENGINE   [I] poplar: compilation of engine done, 12s"},
		{"xla jax", "HloModule jit_step.5 compiled in 2.1s"},
		{"xla", "XLA module jit_step.5 recompiled after step 3"}, // sweep
		{"neuron", "NEFF for graph 17 compiled: /c/model.neff"},  // sweep
		{"wrappers", "Compiled 3 input shapes for the sampler"},
	} {
		evs, st := scantest.Scan(t, warm+c.line+"\nstep 3\n", logscan.Options{})
		if len(evs) != 1 || st.Unread != 1 || len(st.UnreadLines) != 1 || st.UnreadLines[0].Line != 4 || !slices.Contains(strings.Fields(c.framework), st.UnreadLines[0].Framework) ||
			!strings.Contains(c.line, st.UnreadLines[0].Text) {
			t.Errorf("%q: %d events, unread %d %+v", c.line, len(evs), st.Unread, st.UnreadLines)
		}
	}
	// Prose, names and paths that use the same words.
	for _, line := range []string{
		"Compiling the model...", "Model compiled in 3.2 s", "jit(train_step) done in 0.2 s",
		"2026-01-02 10:00:00.000000: I tensorflow/compiler/xla/service/service.cc:168] XLA service 0x55d3 initialized for platform Host",
		"Loaded /usr/lib/tensorflow/compiler/xla/xla_compiler.so for the XLA backend",
		"XlaCompiler::CompileFunction __inference_one_step_on_data_809[]",
		"Executing graph symbolically to populate XlaBuilder.: __inference_train_step_88[_XlaMustCompile=true]",
		"the XLA compiler flags are --xla_cpu_enable_fast_math=false",
		"metadata={op_name=\"jit(step)/jit(main)/add\" source_file=\"/root/.cache/venv/lib/optax/_src/alias.py\"}",
		"pmap extracted 8 shards", "torch_xla: using the compile_cache folder /tmp/c",
	} {
		if _, st := scantest.Scan(t, warm+line+"\n", logscan.Options{}); st.Unread != 0 {
			t.Errorf("%q counted as unread: %+v", line, st.UnreadLines)
		}
	}
}

// The first MaxUnread unread lines are kept in line order, whichever pass found them.
func TestUnreadLinesInOrder(t *testing.T) {
	var b strings.Builder
	for i := range 4 {
		fmt.Fprintf(&b, "Compiled jit(step_%d) for f32[8] in 0.2 sec\n", i)                                     // found by the sweep
		fmt.Fprintf(&b, "WARNING:jax._src.interpreters.pxla:Compiling jit(f%d) on 8 devices, 3 arguments\n", i) // a candidate
	}
	_, st := scantest.Scan(t, b.String(), logscan.Options{})
	var lines []int
	for _, u := range st.UnreadLines {
		lines = append(lines, u.Line)
	}
	if st.Unread != 8 || fmt.Sprint(lines) != "[1 2 3 4 5]" {
		t.Errorf("unread %d, lines %v", st.Unread, lines)
	}
}

// A vocabulary's sweep words make the prefilter find the lines that hold one and no anchor, for
// the vocabulary test alone; without them such a line is never read.
func TestVocabularySweep(t *testing.T) {
	log := "step 1\nthe neff for graph 3 was recompiled\nneff_recompiled_total 3\nstep 2\n"
	for _, sweep := range [][]string{nil, {"ompiled"}} {
		g, err := logscan.NewGrammar(&logscan.Framework{Name: "neff", Anchors: []string{"Compiler status PASS"},
			Vocabulary: logscan.Vocabulary{Subjects: []string{"neff"}, Actions: []string{"ompil"}, Sweep: sweep}})
		if err != nil {
			t.Fatal(err)
		}
		s := logscan.NewScanner(strings.NewReader(log), "n.log", logscan.Options{Grammar: g})
		for s.Scan() {
			t.Errorf("event %+v", s.Event())
		}
		st := s.Stats()
		if sweep == nil && st.Unread != 0 || sweep != nil && (st.Unread != 1 || st.UnreadLines[0].Line != 2) {
			t.Errorf("sweep %q: %+v", sweep, st)
		}
	}
	if _, err := logscan.NewGrammar(&logscan.Framework{Name: "x", Anchors: []string{"Compiler status"},
		Vocabulary: logscan.Vocabulary{Sweep: []string{"d"}}}); err == nil {
		t.Error("a 1-byte sweep word accepted")
	}
}

// A vocabulary's anchors make the prefilter find lines no rule's anchor finds, so that a new
// wording without any of the rules' literals is still reported; its known lines are read.
func TestVocabularyAnchors(t *testing.T) {
	g, err := logscan.NewGrammar(&logscan.Framework{Name: "neff", Anchors: []string{"Compiler status PASS"},
		Vocabulary: logscan.Vocabulary{Anchors: []string{".neff file"}, Subjects: []string{"neff"}, Actions: []string{"compiled", "cache"},
			Known: []string{"Using a cached neff"}}})
	if err != nil {
		t.Fatal(err)
	}
	log := "step 1\nWrote the compiled .neff file to /tmp/a.neff\nUsing a cached neff .neff file at /c/b.neff\nstep 2\n"
	s := logscan.NewScanner(strings.NewReader(log), "n.log", logscan.Options{Grammar: g})
	for s.Scan() {
		t.Errorf("event %+v", s.Event())
	}
	if st := s.Stats(); st.Unread != 1 || st.UnreadLines[0].Line != 2 || st.UnreadLines[0].Framework != "neff" {
		t.Errorf("%+v", st)
	}
}

// The thread ids of glog/absl records are listed once each, in order of appearance, whichever
// record of a thread comes first; a record's source path names its producer.
func TestThreadsListedOnce(t *testing.T) {
	var b strings.Builder
	for i := range 6 {
		fmt.Fprintf(&b, "I0102 10:00:0%d.000000 %d pxla.py:99] pjit train_step: compiling for 8 devices\n", i, []int{7, 42, 7, 42, 9, 7}[i])
		fmt.Fprintf(&b, "2024-05-02 10:00:0%d.000000: I tensorflow/compiler/plugin/poplar/driver/poplar_compiler.cc:1487] Begin XLA compilation: cluster_%d  (Hash: 0x%x) for ordinal  0\n", i, i, 100+i)
	}
	evs, st := scantest.Scan(t, b.String(), logscan.Options{})
	if fmt.Sprint(st.Threads) != "[7 42 9]" {
		t.Errorf("threads %q, want [7 42 9]", st.Threads)
	}
	n := 0
	for _, ev := range evs {
		if ev.Producer == logscan.ProducerTFIPU {
			n++
		}
	}
	if n != 6 {
		t.Errorf("%d TF-IPU events of %d, want 6", n, len(evs))
	}
}

// Each handler call's Context is its own record's (the Scanner reuses its Contexts): a held
// record's done, run at the next record, and the handler that runs after it each see their
// record's line and stamp.
func TestContextsReused(t *testing.T) {
	indented := func(l []byte) bool { return len(l) > 0 && l[0] == ' ' }
	g, err := logscan.NewGrammar(&logscan.Framework{Name: "nest", Anchors: []string{"open "},
		Rules: []logscan.Rule{{Contains: "open ", Handle: func(c *logscan.Context, msg string) bool {
			c.Hold(msg, indented, func(c *logscan.Context, lines []string) {
				_, _, stamp := c.Time()
				c.Emit(logscan.Event{Kind: logscan.CompileEnd, Module: fmt.Sprintf("held %s %d %s", lines[0], len(lines), stamp)})
			})
			_, _, stamp := c.Time()
			c.Emit(logscan.Event{Kind: logscan.CompileBegin, Module: fmt.Sprintf("after hold %s %s", msg, stamp)})
			return true
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	log := "2024-05-02 10:00:01.000000: I a.cc:1] open one\n  more\n" +
		"2024-05-02 10:00:02.000000: I a.cc:1] open two\n" +
		"2024-05-02 10:00:03.000000: I a.cc:1] open three\n  more\n  more\nend\n"
	s := logscan.NewScanner(strings.NewReader(log), "n.log", logscan.Options{Grammar: g})
	var got []string
	for s.Scan() {
		ev := s.Event()
		got = append(got, fmt.Sprintf("%d %s", ev.Line, ev.Module))
	}
	want := []string{
		"1 after hold open one 2024-05-02 10:00:01.000000",
		"1 held open one 2 2024-05-02 10:00:01.000000",
		"3 after hold open two 2024-05-02 10:00:02.000000",
		"3 held open two 1 2024-05-02 10:00:02.000000",
		"4 after hold open three 2024-05-02 10:00:03.000000",
		"4 held open three 3 2024-05-02 10:00:03.000000",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
