package torch

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/logscan"
)

// What the trace says of Inductor's caches: for each FX graph Inductor compiled or loaded, an
// artifact fx_graph_cache_{hit,miss,bypass}, and for each AOTAutograd lookup one
// aotautograd_cache_{hit,miss,bypass} (torch/_inductor/compile_fx.py, autograd_cache.py), each
// with its payload on the next line:
//
//	{"artifact": {"name": "fx_graph_cache_miss", "encoding": "json"}, "frame_id": 0, "frame_compile_id": 0, …}
//		{"cache_status_detailed": "full_miss", "key": "flzqy…", "components": ["[4xocr…] gm: GraphModule()…",
//		 "[pupvl…] example_inputs[0]: TensorMetadata(…)", …, "[mxibi…] inductor_config[…]: 3600", …],
//		 "cache_state": "miss", "time_taken_ns": …}
//
// recomp counts them as torch counts them (counters['inductor']['fxgraph_cache_hit'],
// ['aot_autograd']['autograd_cache_miss'], …), per process, as the stack's metrics: what the run
// did with its caches, said in the answer (cacheNotes). An FX-graph hit is a cache hit of the
// frame being compiled (the cache served its graph; dynamo still compiled the frame, faster),
// named by its key, which names its entry in TORCHINDUCTOR_CACHE_DIR (cache.go). A bypass is a
// warning with torch's reason.
var (
	traceFXCache  = `{"artifact": {"name": "fx_graph_cache_`
	traceAOTCache = `{"artifact": {"name": "aotautograd_cache_`
)

// The counters recomp keeps of Inductor's caches: torch's own names.
const (
	metricFXHit     = "fxgraph_cache_hit"
	metricFXMiss    = "fxgraph_cache_miss"
	metricFXBypass  = "fxgraph_cache_bypass"
	metricAOTHit    = "autograd_cache_hit"
	metricAOTMiss   = "autograd_cache_miss"
	metricAOTBypass = "autograd_cache_bypass"
)

// cacheCounts are, in one process, the lookups of each cache by result.
type cacheCounts map[string]int

// cachePayload is what recomp reads of a cache artifact's payload.
type cachePayload struct {
	Key        string   `json:"key"`
	Components []string `json:"components"`
	Bypass     string   `json:"cache_bypass_reason"`
	// TimeSavedMS is what AOTAutograd says a hit saved: the compile time it stored in the entry.
	TimeSavedMS *float64 `json:"time_saved_ms"`
}

// keyParts are a lookup's key components, each read as recomp run's cache inventory reads an
// entry's (keyComponent): name, hash and value as shown; those it cannot read are left out.
func (p cachePayload) keyParts() []logscan.KeyPart {
	var out []logscan.KeyPart
	for _, c := range p.Components {
		if len(out) == maxKeyParts {
			break
		}
		if f, ok := keyComponent(c); ok {
			hash, _, _ := strings.Cut(c[1:], "]")
			out = append(out, logscan.KeyPart{Name: f.Name, Hash: strings.Clone(hash), Value: f.Value}) // (not the payload's: a graph's whole code)
		}
	}
	return out
}

// cacheArtifact reads one cache artifact and holds its payload, on the line after it.
func cacheArtifact(c *logscan.Context, msg string) bool {
	fx := strings.HasPrefix(msg, traceFXCache)
	rest := strings.TrimPrefix(strings.TrimPrefix(msg, traceFXCache), traceAOTCache)
	state, _, ok := strings.Cut(rest, `"`)
	if !ok || (state != "hit" && state != "miss" && state != "bypass") {
		return false
	}
	id := jsonInt(topField(msg, "frame_id"))
	if id == nil {
		return false
	}
	frame, key := *id, ""
	if n := jsonInt(topField(msg, "frame_compile_id")); n != nil {
		key = strconv.Itoa(frame) + "/" + strconv.Itoa(*n) // dynamo's compile id, as the log's lines carry it
	}
	c.Hold(msg, func(l []byte) bool { return len(l) > 0 && l[0] == '\t' }, func(c *logscan.Context, lines []string) {
		var p cachePayload
		if len(lines) > 1 {
			_ = json.Unmarshal([]byte(strings.TrimSpace(lines[1])), &p)
		}
		cacheResult(c, fx, state, frame, key, p)
	})
	return true
}

// cacheMetrics are torch's counter names by cache (FX graph or not: AOTAutograd) and lookup result.
var cacheMetrics = map[bool]map[string]string{
	true:  {"hit": metricFXHit, "miss": metricFXMiss, "bypass": metricFXBypass},
	false: {"hit": metricAOTHit, "miss": metricAOTMiss, "bypass": metricAOTBypass},
}

// cacheResult counts one lookup and says what it did.
func cacheResult(c *logscan.Context, fx bool, state string, frameID int, key string, p cachePayload) {
	t := traceOf(c)
	if t.caches == nil {
		t.caches = cacheCounts{}
	}
	metric := cacheMetrics[fx][state]
	t.caches[metric]++
	count := logscan.Event{Kind: logscan.FrameworkMetric, Producer: logscan.ProducerDynamo, Signal: logscan.Signal("dynamo:" + metric),
		Detail: metric, Count: t.caches[metric]}
	if state == "miss" && validKey(p.Key) { // the entry it compiled and wrote
		count.Hash, count.Path = p.Key, entryPath(p.Key)
	}
	if state == "hit" && !fx && p.TimeSavedMS != nil && *p.TimeSavedMS > 0 && *p.TimeSavedMS < 1e10 {
		count.Saved = time.Duration(*p.TimeSavedMS * float64(time.Millisecond)) // AOTAutograd's word on what its hit saved
		t.saved += count.Saved
		count.Duration = t.saved // the metric's total: what the process's hits saved
	}
	c.Emit(count)
	frame := cmp.Or(t.user[frameID], t.named[frameID], unnamedLimit)
	cache := "AOTAutograd's cache"
	if fx {
		cache = "Inductor's FX-graph cache"
	}
	switch {
	case state == "miss" && fx && t.lastMiss != "id:"+key:
		// The frame's graph missed the cache: the compilation dynamo records next is that miss's
		// (no name here: the frame's compilation names it). One a compilation: a training step's
		// backward graph, which misses right after its forward, does not start another.
		t.lastMiss = "id:" + key
		ev := logscan.Event{Kind: logscan.CacheMiss, Producer: logscan.ProducerDynamo, Signal: "dynamo:fx_graph_cache_miss", Key: key,
			KeyParts: p.keyParts(), Detail: "Inductor's FX-graph cache missed the graph of " + frame}
		if validKey(p.Key) {
			ev.Hash, ev.Path = p.Key, entryPath(p.Key)
		}
		c.Emit(ev)
	case state == "hit" && fx:
		ev := logscan.Event{Kind: logscan.CacheHit, Producer: logscan.ProducerDynamo, Signal: "dynamo:fx_graph_cache_hit", Module: frame, Key: key,
			KeyParts: p.keyParts(), Detail: "Inductor's FX-graph cache served the graph of " + frame}
		if validKey(p.Key) {
			ev.Hash, ev.Path = p.Key, entryPath(p.Key)
			ev.Detail += " (entry " + p.Key + ")"
		}
		c.Emit(ev)
	case state == "bypass":
		why := cmp.Or(strings.TrimSpace(p.Bypass), "no reason given")
		c.Emit(logscan.Event{Kind: logscan.FrameworkWarning, Producer: logscan.ProducerDynamo, Signal: logscan.Signal("dynamo:" + metric), Module: frame,
			Detail: fmt.Sprintf("%s was bypassed for %s (%s): the graph was compiled without the cache, and nothing was written", cache,
				frame, why)})
	}
}

// validKey says whether a key from a trace is an Inductor cache key (and so a safe path part).
func validKey(k string) bool { return reInductorKey.MatchString(k) }

// entryPath is where an FX-graph or AOTAutograd key's entries lie below TORCHINDUCTOR_CACHE_DIR.
func entryPath(key string) string {
	if key[0] == 'a' {
		return "aotautograd/" + key + "/"
	}
	return "fxgraph/" + key[1:3] + "/" + key + "/"
}

// cacheNotes says what a run did with Inductor's caches, from the counts of its trace: the
// reason it compiled, or that the cache served it.
func cacheNotes(ms map[string]framework.Metric, _ int) []framework.Note {
	fxHit, fxMiss, fxBypass := ms[metricFXHit], ms[metricFXMiss], ms[metricFXBypass]
	aotHit, aotMiss := ms[metricAOTHit], ms[metricAOTMiss]
	if fxHit.Count+fxMiss.Count+fxBypass.Count+aotHit.Count+aotMiss.Count == 0 {
		return nil
	}
	at := fxMiss
	if at.File == "" {
		at = fxHit
	}
	aot := fmt.Sprintf("; AOTAutograd's cache: %s, %s", plural(aotHit.Count, "hit"), plural(aotMiss.Count, "miss"))
	saved := ""
	if aotHit.Total > 0 {
		saved = fmt.Sprintf("; the trace says the hits saved %.1fs of compiling (AOTAutograd's time_saved_ms)", aotHit.Total.Seconds())
	}
	switch {
	case fxMiss.Count == 0 && fxBypass.Count == 0:
		return []framework.Note{{Severity: "info", Kind: "compile_cache", File: at.File, Line: at.Line,
			Message: fmt.Sprintf("Inductor's FX-graph cache served every graph (%s%s): dynamo traced the functions, Inductor "+
				"generated and compiled no code%s", plural(fxHit.Count, "hit"), aot, saved)}}
	case fxMiss.Count > 0:
		return []framework.Note{{Severity: "warning", Kind: "compile_cache", File: at.File, Line: at.Line,
			Message: fmt.Sprintf("Inductor's FX-graph cache missed %s and served %d (%s): each graph it missed was compiled "+
				"and written to TORCHINDUCTOR_CACHE_DIR", plural(fxMiss.Count, "graph"), fxHit.Count, strings.TrimPrefix(aot, "; ")),
			Advice: "a key part differed from every entry of the cache (the graph, the inputs' shapes, the torch version, the " +
				"system, an Inductor config value), or the cache was empty or another folder: recomp cache DIR --against " +
				"EARLIER_DIR, or recomp diff EARLIER_RUN THIS_RUN, names the part"}}
	}
	return []framework.Note{{Severity: "warning", Kind: "compile_cache", File: fxBypass.File, Line: fxBypass.Line,
		Message: fmt.Sprintf("Inductor's FX-graph cache was bypassed for %s (%s served): those graphs were compiled without "+
			"the cache", plural(fxBypass.Count, "graph"), plural(fxHit.Count, "hit")),
		Advice: "the warnings name torch's reason for each bypass (a graph Inductor cannot pickle, a custom pass without a " +
			"uuid, freezing): remove it to use the cache"}}
}

func plural(n int, one string) string {
	switch {
	case n == 1:
		return "1 " + one
	case strings.HasSuffix(one, "s"):
		return fmt.Sprintf("%d %ses", n, one)
	}
	return fmt.Sprintf("%d %ss", n, one)
}
