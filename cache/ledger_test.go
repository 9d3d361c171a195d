package cache

import (
	"fmt"
	"strings"
	"testing"

	"github.com/recomp/recomp/logscan"
)

func report(t *testing.T, opt Options, log string) *Report {
	t.Helper()
	so := logscan.Options{}
	if opt.AfterMarker {
		re, _ := CompileMarker("Epoch 2/")
		so.Marker = re
	}
	s := logscan.NewScanner(strings.NewReader(log), "run.log", so)
	l := NewLedger(opt)
	for s.Scan() {
		l.Add(0, s.Event())
	}
	l.EndInput(0, "run.log", opt.AfterMarker)
	return l.Report()
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
	if r.Loads[0].Owned != true || r.Loads[1].Owned != false {
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
