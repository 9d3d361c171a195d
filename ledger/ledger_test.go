package ledger

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/logscan"
)

// report reads one log, run.log; with AfterMarker the warm-up ends at "Epoch 2/".
func report(t *testing.T, opt Options, log string) *Report {
	t.Helper()
	ro := ReadOptions{Ledger: opt}
	if opt.AfterMarker {
		ro.Marker, _ = logscan.NewLineRegexp("Epoch 2/")
	}
	return read(t, ro, Log{Path: "run.log", Reader: strings.NewReader(log)})
}

func read(t *testing.T, opt ReadOptions, logs ...Log) *Report {
	t.Helper()
	s, err := ReadLogs(logs, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s.Ledger
}

const (
	req  = "Begin XLA compilation: %s  (Hash: %s) for ordinal  0\n"
	miss = "Couldn't find /c/%s.poplar_exec in executable cache\n"
	hit  = "Loaded %s from /c/%s.poplar_exec\n"
	eng  = "Begin compiling Poplar engine %s\nStarting phase: graphConstruction\nEnd compiling Poplar engine.\n"
	load = "Ending phase: Loading executable (duration 600 ms; diff RSS: 0 MB)\n"
)

func f(format string, args ...any) string { return fmt.Sprintf(format, args...) }

func TestRequestServedFromCacheIsNotACompilation(t *testing.T) {
	r := report(t, Options{}, f(req, "m.1", "0xa")+f(hit, "m.1", "abc")+load)
	s := r.Summary
	if s.CompileRequests != 1 || s.Compilations != 0 || s.CacheHits != 1 || s.ExecutableLoads != 1 {
		t.Errorf("summary %+v", s)
	}
}

func TestSignalsOfOneCompilationAreJoined(t *testing.T) {
	// request, miss, engine begin, Poplar graph construction, engine end: one compilation.
	r := report(t, Options{}, f(req, "m.1", "0xa")+f(miss, "abc")+f(eng, "m.1")+load)
	s := r.Summary
	if s.CompileRequests != 1 || s.Compilations != 1 || s.CacheMisses != 1 || s.Recompilations != 0 {
		t.Errorf("summary %+v", s)
	}
	if s.LoadsAfterWarmup != 0 {
		t.Errorf("the load right after a compilation is part of it: %+v", s)
	}
}

func TestRecompilationKinds(t *testing.T) {
	newHash := report(t, Options{}, f(req, "cluster_3.5", "0xa")+f(eng, "cluster_3.5")+f(req, "cluster_3.9", "0xb")+f(eng, "cluster_3.9"))
	if newHash.Summary.Recompilations != 1 || len(newHash.Findings) != 1 || newHash.Findings[0].Kind != "recompiled_new_hash" {
		t.Errorf("new hash: %+v %+v", newHash.Summary, newHash.Findings)
	}
	if m := newHash.Modules[0]; m.Family != "cluster_3" || len(m.Hashes) != 2 || !m.Recompiled {
		t.Errorf("module %+v", m)
	}
	sameHash := report(t, Options{}, f(req, "m", "0xa")+f(eng, "m")+f(req, "m", "0xa")+f(eng, "m"))
	if sameHash.Findings[0].Kind != "recompiled_same_hash" {
		t.Errorf("same hash: %+v", sameHash.Findings)
	}
	// Two graphs without names (PopTorch bars) are not a recompilation of one family.
	bars := report(t, Options{}, "Graph compilation:   4%|| 4/100 [00:00<00:04]\nGraph compilation: 100%|| 100/100 [00:09<00:00]\n"+
		"Graph compilation:   4%|| 4/100 [00:00<00:04]\nGraph compilation: 100%|| 100/100 [00:19<00:00]\n")
	if bars.Summary.Compilations != 2 || bars.Summary.Recompilations != 0 || bars.Summary.CompileTime.Seconds() != 28 {
		t.Errorf("bars %+v", bars.Summary)
	}
}

// A load belongs to the compilation just before it, never to an earlier one: after two
// compilations in a row, the first load is the second executable's, and the next is a switch.
func TestLoadOwnership(t *testing.T) {
	r := report(t, Options{}, f(req, "a", "0x1")+f(eng, "a")+f(req, "b", "0x2")+f(eng, "b")+load+load)
	if r.Summary.ExecutableLoads != 2 || r.Summary.LoadsAfterWarmup != 1 {
		t.Errorf("summary %+v", r.Summary)
	}
	if !r.Loads[0].Owned || r.Loads[1].Owned || !r.Loads[1].AfterWarmup {
		t.Errorf("loads %+v", r.Loads)
	}
}

func TestWarmupBoundaries(t *testing.T) {
	log := f(req, "a", "0x1") + f(eng, "a") + load + "Epoch 2/3\n" + load + f(req, "b", "0x2") + f(eng, "b") + load + load
	byMarker := report(t, Options{AfterMarker: true}, log)
	if byMarker.Summary.AfterWarmup != 1 || byMarker.Summary.LoadsAfterWarmup != 2 {
		t.Errorf("--after: %+v", byMarker.Summary)
	}
	byCount := report(t, Options{Warmup: 2}, log)
	if byCount.Summary.AfterWarmup != 0 {
		t.Errorf("--warmup 2: %+v", byCount.Summary)
	}
	def := report(t, Options{}, log)
	if def.Summary.AfterWarmup != 0 || def.Summary.Recompilations != 0 {
		t.Errorf("default: %+v", def.Summary)
	}
	noMarker := report(t, Options{AfterMarker: true}, f(req, "a", "0x1"))
	if len(noMarker.Findings) == 0 || noMarker.Findings[0].Kind != "marker_not_found" {
		t.Errorf("missing marker not reported: %+v", noMarker.Findings)
	}
}

func TestSummarizeWhy(t *testing.T) {
	why := "for train_step defined at a.py:39\nall previously seen cache keys differ. For the closest previous key:\ndifferent input types:\n* at x, now f32[24,8] and before f32[32,8]\n* at y, now f32[24,4] and before f32[32,4]"
	want := "different input types: * at x, now f32[24,8] and before f32[32,8]; * at y, now f32[24,4] and before f32[32,4]"
	if got := SummarizeWhy(why); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// ledgerOf reads each log as its own process (rank0.log, rank1.log, ...) and merges them.
func ledgerOf(t *testing.T, opt Options, logs ...string) *Report {
	t.Helper()
	var in []Log
	for i, log := range logs {
		in = append(in, Log{Path: fmt.Sprintf("rank%d.log", i), Reader: strings.NewReader(log)})
	}
	return read(t, ReadOptions{Ledger: opt}, in...)
}

// Two rank logs that each compiled once are two processes: no recompilation. The same two
// logs fed to one Ledger (one process whose log was split) are.
func TestInputsAreSeparateProcesses(t *testing.T) {
	rank := f(req, "cluster_1.4", "0xa") + f(eng, "cluster_1.4")
	r := ledgerOf(t, Options{}, rank, rank)
	if r.Summary.Compilations != 2 || r.Summary.Recompilations != 0 || r.Summary.AfterWarmup != 0 || r.Processes != 2 {
		t.Errorf("two processes: %+v", r.Summary)
	}
	if len(r.Modules) != 1 || r.Modules[0].Compilations != 2 || r.Modules[0].Recompiled || r.Modules[0].Inputs != 2 {
		t.Errorf("module %+v", r.Modules[0])
	}
	again := ledgerOf(t, Options{}, rank+f(req, "cluster_1.9", "0xb")+f(eng, "cluster_1.9"), rank)
	if again.Summary.Recompilations != 1 || len(again.Findings) != 1 || !strings.Contains(again.Findings[0].Message, "in 1 of 2 inputs") {
		t.Errorf("one rank recompiled: %+v %+v", again.Summary, again.Findings)
	}
	if again.Findings[0].File != "rank0.log" || again.Findings[0].Line != 5 {
		t.Errorf("the finding points at the recompilation: %+v", again.Findings[0])
	}
	one := read(t, ReadOptions{SameProcess: true},
		Log{Path: "part.log", Reader: strings.NewReader(rank)}, Log{Path: "part.log", Reader: strings.NewReader(rank)})
	if one.Summary.Recompilations != 1 || one.Processes != 1 || one.Inputs != 2 {
		t.Errorf("one process: %+v", one.Summary)
	}
}

func jaxEvent(kind logscan.Kind, module, signature string, line int) logscan.Event {
	return logscan.Event{Kind: kind, Producer: logscan.ProducerJAX, Signal: logscan.Signal("jax:" + string(kind)),
		Module: module, Signature: signature, File: "run.log", Line: line}
}

func feed(opt Options, evs ...logscan.Event) *Report {
	l := NewLedger(opt)
	l.BeginInput(0, "run.log")
	for _, ev := range evs {
		l.Add(ev)
	}
	l.EndInput(false)
	return Merge(opt, l.Report())
}

// Eager one-op programs share a name but are different programs: their compilations count,
// they are neither recompilations nor after warm-up; the user's step recompiling still is.
func TestEagerProgramsAreNotRecompilations(t *testing.T) {
	r := feed(Options{},
		jaxEvent(logscan.CompileRequest, "jit_convert_element_type", "(ShapedArray(float32[8]),)", 1),
		jaxEvent(logscan.RequestDone, "jit_convert_element_type", "", 2),
		jaxEvent(logscan.CompileRequest, "jit_convert_element_type", "(ShapedArray(int32[8,4]),)", 3),
		jaxEvent(logscan.RequestDone, "jit_convert_element_type", "", 4),
		jaxEvent(logscan.CompileRequest, "jit__normal", "(ShapedArray(key<fry>[]),)", 5),
		jaxEvent(logscan.RequestDone, "jit__normal", "", 6),
		jaxEvent(logscan.CompileRequest, "jit__normal", "(ShapedArray(key<fry>[2]),)", 7),
		jaxEvent(logscan.RequestDone, "jit__normal", "", 8),
		jaxEvent(logscan.CompileRequest, "jit_train_step", "(ShapedArray(float32[32,8]),)", 9),
		jaxEvent(logscan.RequestDone, "jit_train_step", "", 10),
		jaxEvent(logscan.CompileRequest, "jit_train_step", "(ShapedArray(float32[24,8]),)", 11),
		jaxEvent(logscan.RequestDone, "jit_train_step", "", 12),
	)
	s := r.Summary
	if s.Compilations != 6 || s.EagerCompilations != 4 || s.Recompilations != 1 || s.AfterWarmup != 1 {
		t.Errorf("summary %+v", s)
	}
	if len(r.Late) != 1 || r.Late[0].Family != "jit_train_step" || r.Late[0].Line != 11 {
		t.Errorf("late %+v", r.Late)
	}
	var kinds []string
	for _, f := range r.Findings {
		kinds = append(kinds, string(f.Kind))
	}
	if strings.Join(kinds, ",") != "recompiled,eager_compilations" {
		t.Errorf("findings %v", kinds)
	}
}

// A framework's explanation belongs to the compilation of the function it names: a nested
// function's trace miss is not the outer step's reason, and a compilation JAX did not explain
// does not inherit an earlier explanation.
func TestExplanationBelongsToItsFunction(t *testing.T) {
	why := func(fn, text string, line int) logscan.Event {
		ev := jaxEvent(logscan.Retrace, fn, "", line)
		ev.Reason = text
		return ev
	}
	r := feed(Options{},
		jaxEvent(logscan.CompileRequest, "jit_step", "a", 1), jaxEvent(logscan.RequestDone, "jit_step", "", 2),
		why("inner", "inner changed", 3),
		why("step", "step changed", 4),
		jaxEvent(logscan.CompileRequest, "jit_step", "b", 5), jaxEvent(logscan.RequestDone, "jit_step", "", 6),
		why("inner", "inner changed again", 7),
		jaxEvent(logscan.CompileRequest, "jit_step", "c", 8), jaxEvent(logscan.RequestDone, "jit_step", "", 9),
		jaxEvent(logscan.CompileRequest, "jit_step", "d", 10), jaxEvent(logscan.RequestDone, "jit_step", "", 11),
	)
	units := r.Modules[0].Units
	if len(units) != 4 || units[0].Why != "" || units[1].Why != "step changed" || units[2].Why != "" || units[3].Why != "" {
		for _, u := range units {
			t.Logf("line %d: why %q", u.Line, u.Why)
		}
		t.Error("explanations attached to the wrong compilations")
	}
}

func TestNoEvidenceIsAFinding(t *testing.T) {
	r := ledgerOf(t, Options{}, "just some output\nno compiler here\n")
	if len(r.Findings) != 1 || r.Findings[0].Kind != FindingNoEvidence || !strings.Contains(r.Findings[0].Advice, "JAX_LOG_COMPILES") {
		t.Errorf("findings %+v", r.Findings)
	}
}

// TestLedgerMemoryIsBounded feeds a million compilations of one family and a million loads:
// what the ledger holds stays bounded (lists capped, families aggregated).
func TestLedgerMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	l := NewLedger(Options{})
	l.BeginInput(0, "big.log")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const n = 1_000_000
	for i := range n {
		l.Add(logscan.Event{Kind: logscan.CompileRequest, Producer: logscan.ProducerTFIPU, Signal: "tf:begin_xla",
			Module: "cluster_1", Hash: fmt.Sprintf("0x%x", i), File: "big.log", Line: 2 * i})
		l.Add(logscan.Event{Kind: logscan.ExecutableLoad, Producer: logscan.ProducerPoplar, Signal: "poplar:Loading executable",
			File: "big.log", Line: 2*i + 1, Duration: time.Millisecond})
	}
	l.EndInput(false)
	r := Merge(Options{}, l.Report())
	runtime.GC()
	runtime.ReadMemStats(&after)
	if r.Summary.Compilations != n || r.Summary.Recompilations != n-1 || r.Summary.ExecutableLoads != n || r.Modules[0].HashCount <= MaxHashes {
		t.Errorf("summary %+v, hashes %d", r.Summary, r.Modules[0].HashCount)
	}
	if len(r.Late) != MaxListed || len(r.Modules[0].Units) != MaxUnits || len(r.Modules[0].Hashes) != MaxHashes {
		t.Errorf("lists: late %d units %d hashes %d", len(r.Late), len(r.Modules[0].Units), len(r.Modules[0].Hashes))
	}
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 16<<20 {
		t.Errorf("the ledger holds %d MB after a million compilations", grown>>20)
	}
	runtime.KeepAlive(r)
}

// TestLedgerFamiliesBounded feeds 200 000 module families, each compiled twice: the ledger
// accounts the first MaxFamilies one by one and the others together, every compilation and
// recompilation is still counted (the gate sees them), a finding says what is not listed,
// and what the ledger holds stays bounded.
func TestLedgerFamiliesBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	const n = 200_000
	l := NewLedger(Options{})
	l.BeginInput(0, "families.log")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range 2 * n {
		l.Add(logscan.Event{Kind: logscan.CompileRequest, Producer: logscan.ProducerTFIPU, Signal: "tf:begin_xla",
			Module: fmt.Sprintf("cluster_%d", i%n), Hash: fmt.Sprintf("0x%x", i), File: "families.log", Line: i + 1})
	}
	l.EndInput(false)
	r := Merge(Options{}, l.Report())
	runtime.GC()
	runtime.ReadMemStats(&after)
	sm := r.Summary
	if len(r.Modules) != MaxFamilies || sm.Compilations != 2*n || sm.Recompilations != n || sm.AfterWarmup != n {
		t.Errorf("%d modules listed, summary %+v", len(r.Modules), sm)
	}
	if sm.FamiliesNotListed != n-MaxFamilies || sm.CompilationsNotListed != 2*(n-MaxFamilies) || sm.RecompilationsNotListed != n-MaxFamilies {
		t.Errorf("not listed: %d families, %d compilations, %d recompilations", sm.FamiliesNotListed, sm.CompilationsNotListed, sm.RecompilationsNotListed)
	}
	var said bool
	for _, f := range r.Findings {
		said = said || f.Kind == FindingFamiliesNotListed && f.Severity == SeverityError && strings.Contains(f.Message, "190000 module families beyond the first 10000")
	}
	if !said {
		t.Error("no finding says which families are not listed")
	}
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 64<<20 {
		t.Errorf("the ledger holds %d MB after 200 000 families", grown>>20)
	}
	runtime.KeepAlive(r)
}

// BenchmarkLedgerFamilies feeds n module families, each compiled twice.
func BenchmarkLedgerFamilies(b *testing.B) {
	const n = 200_000
	evs := make([]logscan.Event, 0, 2*n)
	for i := range 2 * n {
		evs = append(evs, logscan.Event{Kind: logscan.CompileRequest, Producer: logscan.ProducerTFIPU, Signal: "tf:begin_xla",
			Module: fmt.Sprintf("cluster_%d", i%n), Hash: fmt.Sprintf("0x%x", i), File: "families.log", Line: i + 1})
	}
	b.ReportAllocs()
	for b.Loop() {
		l := NewLedger(Options{})
		l.BeginInput(0, "families.log")
		for _, ev := range evs {
			l.Add(ev)
		}
		l.EndInput(false)
		Merge(Options{}, l.Report())
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
}

// BenchmarkLedger feeds n compilations of one family, each followed by an executable load:
// the time per event must not grow with n.
func BenchmarkLedger(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		evs := make([]logscan.Event, 0, 2*n)
		for i := range n {
			evs = append(evs,
				logscan.Event{Kind: logscan.CompileRequest, Producer: logscan.ProducerTFIPU, Signal: "tf:begin_xla",
					Module: "cluster_1", Hash: fmt.Sprintf("0x%x", i), File: "big.log", Line: 2 * i},
				logscan.Event{Kind: logscan.ExecutableLoad, Producer: logscan.ProducerPoplar, Signal: "poplar:Loading executable",
					File: "big.log", Line: 2*i + 1, Duration: time.Millisecond})
		}
		b.Run(fmt.Sprintf("compilations=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				l := NewLedger(Options{})
				l.BeginInput(0, "big.log")
				for _, ev := range evs {
					l.Add(ev)
				}
				l.EndInput(false)
				Merge(Options{}, l.Report())
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
		})
	}
}

// FuzzLedger feeds random event sequences: no panic, and the books balance.
func FuzzLedger(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, uint8(0))
	f.Add([]byte{0, 3, 4, 11, 0, 2, 11, 11, 5, 1, 6, 10, 9, 9}, uint8(1))
	f.Add([]byte{12, 0, 4, 0, 4, 11, 11, 11, 7, 8, 0, 0}, uint8(2))
	kinds := []logscan.Kind{logscan.CompileRequest, logscan.CompileEnd, logscan.CacheMiss, logscan.CacheHit,
		logscan.CompileBegin, logscan.CompileFinished, logscan.ClusterCompiled, logscan.CacheWrite, logscan.RequestDone,
		logscan.Retrace, logscan.Marker, logscan.ExecutableLoad, logscan.CompileSkipped, logscan.FrameworkMetric}
	f.Fuzz(func(t *testing.T, ops []byte, policy uint8) {
		opt := Options{}
		switch policy % 4 {
		case 1:
			opt.Warmup = 2
		case 2:
			opt.AfterMarker = true
		case 3:
			opt.Baseline = map[string][]string{"m0": {"0x0"}}
		}
		l := NewLedger(opt)
		l.BeginInput(0, "fuzz.log")
		count := map[logscan.Kind]int{}
		reported := 0
		for i, op := range ops {
			k := kinds[int(op)%len(kinds)]
			count[k]++
			ev := logscan.Event{Kind: k, Producer: logscan.ProducerJAX, Signal: logscan.Signal(fmt.Sprint(op % 3)), File: "fuzz.log", Line: i + 1,
				Module: fmt.Sprintf("m%d", (op/16)%3), Hash: fmt.Sprintf("0x%d", (op/48)%2), Duration: time.Duration(op) * time.Millisecond}
			if op&0x80 != 0 {
				ev.Module, ev.Reason = "", "why"
			}
			if k == logscan.FrameworkMetric { // PyTorch/XLA's metrics report: cumulative counts
				ev.Producer, ev.Detail, ev.Count = logscan.ProducerTorchXLA, []string{"CompileTime", "CachedCompile"}[op%2], int(op%64)
				if ev.Detail == "CompileTime" {
					reported = max(reported, ev.Count)
				}
			}
			l.Add(ev)
		}
		l.EndInput(opt.AfterMarker)
		r := Merge(opt, l.Report())
		s := r.Summary
		makers := count[logscan.CompileRequest] + count[logscan.CompileEnd] + count[logscan.CacheMiss] + count[logscan.CompileBegin] +
			count[logscan.CompileFinished] + count[logscan.RequestDone] + count[logscan.ClusterCompiled]
		if s.Compilations > max(makers, reported) || s.CacheHits > max(count[logscan.CacheHit], 63) || s.CompileRequests > count[logscan.CompileRequest] ||
			s.ExecutableLoads != count[logscan.ExecutableLoad] || s.LoadsAfterWarmup > s.ExecutableLoads ||
			s.Recompilations > s.Compilations || s.AfterWarmup > s.Compilations || s.CacheWrites > count[logscan.CacheWrite] {
			t.Fatalf("books do not balance: %+v for %v", s, count)
		}
		n := 0
		for _, m := range r.Modules {
			n += m.Compilations
		}
		if n+s.ReportedCompilations != s.Compilations || len(r.Late) != min(s.AfterWarmup, MaxListed) {
			t.Fatalf("modules %d, summary %d, late %d/%d", n, s.Compilations, len(r.Late), s.AfterWarmup)
		}
	})
}

// TestSameArgumentsSaid: when JAX compiled a function again with the same argument shapes and
// types, the finding says the change lies outside the arguments; not when they differ.
func TestSameArgumentsSaid(t *testing.T) {
	jax := func(shapes ...string) string {
		var b strings.Builder
		for _, s := range shapes {
			b.WriteString("WARNING:2024-05-02 10:00:00,000:jax._src.interpreters.pxla:1906: Compiling jit(f) with global shapes and types (ShapedArray(" + s + "),). Argument mapping: (UnspecifiedValue,).\n")
			b.WriteString("WARNING:2024-05-02 10:00:00,100:jax._src.dispatch:182: Finished XLA compilation of jit(f) in 0.024 sec\n")
		}
		return b.String()
	}
	for _, c := range []struct {
		log  string
		same bool
	}{{jax("float32[8]", "float32[8]"), true}, {jax("float32[8]", "float32[6]"), false}, {jax("float32[8]"), false}} {
		r := report(t, Options{}, c.log)
		msg := ""
		for _, f := range r.Findings {
			msg += f.Message
		}
		if got := strings.Contains(msg, "same argument shapes and types (float32[8],)"); got != c.same {
			t.Errorf("%d compilation(s): said %v, want %v: %q", r.Summary.Compilations, got, c.same, msg)
		}
	}
}

// A graph whose program the log cannot name (every PyTorch/XLA frame is library code, as under
// torch.compile) is not exempt: a second graph hash fails the gate, saying why (issue 20.5).
func TestUnnamedGraphsAreNotExempt(t *testing.T) {
	block := func(hash string) string {
		return "Compilation Analysis: ================================================================================\n" +
			"Compilation Analysis: Compilation Cause\n" +
			"Compilation Analysis:   dynamo is compiling a FX graph to HLO\n" +
			"Compilation Analysis: Graph Info: \n" +
			"Compilation Analysis:   Graph Hash: " + hash + "\n" +
			"Compilation Analysis: Python Frame Triggered Execution: \n" +
			"Compilation Analysis:   extract_compiled_graph (/v/lib/python3.11/site-packages/torch_xla/_dynamo/dynamo_bridge.py:733)\n" +
			"Compilation Analysis: --------------------------------------------------------------------------------\n" +
			"Compilation Analysis: ================================================================================\n"
	}
	r := report(t, Options{}, block("aaa")+block("bbb")+block("ccc"))
	if r.Summary.Compilations != 3 || r.Summary.AfterWarmup != 2 || len(r.Late) != 2 || !strings.Contains(r.Late[0].Late, "does not name") {
		t.Fatalf("summary %+v late %+v", r.Summary, r.Late)
	}
	if m := r.Modules[0]; m.Family != Unnamed || !m.Recompiled {
		t.Errorf("module %+v", m)
	}
}

// JAX's tracing and lowering times go to the compilation they led to: tracing comes before the
// request, lowering after; a nested function's tracing (0.4 logs those too) is dropped.
func TestStageTimes(t *testing.T) {
	log := "Finished tracing + transforming inner for pjit in 0.5 sec\n" +
		"Finished tracing train_step for jit in 0.25 sec\n" +
		"Compiling jit(train_step) with global shapes and types (ShapedArray(float32[8]),). Argument mapping: (UnspecifiedValue,).\n" +
		"Finished jaxpr to MLIR module conversion jit(train_step) in 0.125 sec\n" +
		"Finished XLA compilation of jit(train_step) in 1.0 sec\n"
	r := report(t, Options{}, log)
	u := r.Modules[0].Units[0]
	if u.TraceTime != 250*time.Millisecond || u.LowerTime != 125*time.Millisecond || u.Duration != time.Second {
		t.Errorf("unit %+v", u)
	}
	if s := r.Summary; s.TraceTime != 250*time.Millisecond || s.LowerTime != 125*time.Millisecond || s.CompileTime != time.Second {
		t.Errorf("summary %+v", s)
	}
}

// The line of the program that made a framework compile: JAX's "TRACING CACHE MISS at
// FILE:LINE:COL (FUNCTION)" and PyTorch/XLA's first frame of the program's own code.
func TestSites(t *testing.T) {
	jax := "TRACING CACHE MISS at /w/train.py:64:12 (main):\n  never seen function:\n    step id=1 defined at /w/train.py:20\n" +
		"Compiling jit(step) with global shapes and types (ShapedArray(float32[8]),). Argument mapping: (UnspecifiedValue,).\n" +
		"Finished XLA compilation of jit(step) in 0.1 sec\n"
	u := report(t, Options{}, jax).Modules[0].Units[0]
	if u.Site != (Site{File: "/w/train.py", Line: 64, Function: "main"}) || !u.Site.User() || u.Site.String() != "/w/train.py:64 (main)" {
		t.Errorf("jax site %+v", u.Site)
	}
	pt := "Compilation Analysis: Compilation Cause\nCompilation Analysis:   user mark_step\nCompilation Analysis:   Graph Hash: ab\n" +
		"Compilation Analysis: Python Frame Triggered Execution: \n" +
		"Compilation Analysis:   mark_step (/v/lib/python3.11/site-packages/torch_xla/core/xla_model.py:1058)\n" +
		"Compilation Analysis:   train (/w/train.py:88)\n" +
		"Compilation Analysis: --------------------------------------------------------------------------------\n"
	u = report(t, Options{}, pt).Modules[0].Units[0]
	if u.Site != (Site{File: "train.py", Line: 88, Function: "train"}) {
		t.Errorf("torch_xla site %+v", u.Site)
	}
	for in, want := range map[string]Site{"a.py:3": {File: "a.py", Line: 3}, "x": {}, "/s/site-packages/flax/c.py:1:2 (f)": {File: "/s/site-packages/flax/c.py", Line: 1, Function: "f"}} {
		if got := ParseSite(in); got != want {
			t.Errorf("%q: %+v", in, got)
		}
	}
	if (Site{File: "/s/site-packages/flax/c.py", Line: 1}).User() {
		t.Error("a library's line is the user's")
	}
}

// TF prints "Compiled cluster using XLA!" once, just before its first compilation's profiler
// line: with that line it is not a compilation of its own; alone it is the one compilation the
// log shows.
func TestClusterLineBeforeTheProfilersLine(t *testing.T) {
	cluster := "I0000 00:00:1795513147.374659   16417 device_compiler.h:208] Compiled cluster using XLA!  This line is logged at most once for the lifetime of the process.\n"
	prof := "I0000 00:00:1795513147.374695   16417 device_compilation_profiler.cc:113] Compiled __inference_train_step_%d 1 times, compile time: 55945 us, cumulative: 55945 us (0 us / 55.9 ms)\n"
	if s := report(t, Options{}, cluster+f(prof, 10)+f(prof, 25)).Summary; s.Compilations != 2 {
		t.Errorf("with the profiler's lines: %d compilations, want 2", s.Compilations)
	}
	if s := report(t, Options{}, cluster).Summary; s.Compilations != 1 {
		t.Errorf("the cluster line alone: %d compilations, want 1", s.Compilations)
	}
}
