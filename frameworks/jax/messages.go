package jax

import (
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/recomp/recomp/frameworks/internal/python"
	"github.com/recomp/recomp/internal/lazyre"
	"github.com/recomp/recomp/logscan"
)

// Messages of JAX, from the sources and real runs of jax 0.4.38 to 0.12, and the format
// strings of every release from 0.2.20 in jax's history (jax/_src/interpreters/pxla.py,
// dispatch.py, compiler.py, compilation_cache.py, interpreters/partial_eval.py, pjit.py).
var (
	// The compile request, by release: 0.4.30+ "Compiling jit(NAME) with global shapes and types
	// T. Argument mapping: M."; 0.4.8–0.4.29 "Compiling NAME for with global shapes and types …"
	// (sic), 0.3.25–0.4.7 "Compiling NAME (ID) for with global shapes …", and for a mesh
	// "Compiling NAME [(ID)] for MESH mesh with global shapes …"; pmap "Compiling NAME (ID) for N
	// devices with args T. (num_replicas=…"; 0.2 "Compiling NAME (ID) for args T." (0.2.2x: "(ID
	// for args", sic) or, past 10 arguments, "for N args.".
	reCompiling = lazyre.New(`^Compiling (\S+) (?:\(\d+\)? )?(?:for (?:(.*? mesh )|(\d+ devices ))?)?` +
		`(?:with global shapes and types (.*?)\. Argument mapping: |with args (.*?)\. \(num_replicas=|args (.*)\.$|\d+ args\.$)`)
	reFinished = lazyre.New(`^Finished XLA compilation of (\S+) in ([0-9.]+) sec`)
	// ≥ 0.10: "Finished tracing F for jit in T sec"; before: "Finished tracing + transforming F
	// for pjit in T sec"; then "Finished jaxpr to MLIR module conversion M in T sec".
	reTraced  = lazyre.New(`^Finished tracing (?:\+ transforming )?(\S+) for p?jit in ([0-9.]+) sec`)
	reLowered = lazyre.New(`^Finished jaxpr to MLIR module conversion (\S+) in ([0-9.]+) sec`)
	// The persistent cache, by release: a hit is "Persistent compilation cache hit" (0.2.20),
	// "… hit for NAME." (0.2.2x–0.3.2x), "… hit for 'NAME'" (0.3.25–0.4.30), "… hit for 'NAME'
	// with key 'KEY'" (0.4.31+); a write "Writing NAME to persistent compilation cache with key
	// KEY." (to 0.4.30), with 'KEY' quoted after; a miss is logged from 0.4.31 on.
	reHit   = lazyre.New(`^Persistent compilation cache hit(?: for (?:'([^']*)'|(\S+?))\.?(?: with key '([^']*)')?)?\s*$`)
	reMiss  = lazyre.New(`^PERSISTENT COMPILATION CACHE MISS for '([^']*)' with key '([^']*)'`)
	reWrite = lazyre.New(`^Writing (\S+) to persistent compilation cache with key (?:'([^']*)'|(\S+?)\.?\s*$)`)
	// A compilation's time, logged before it is written to the persistent cache: "'NAME' took at
	// least T seconds to compile (Ds), writing persistent cache entry" (0.3.25–0.4.23), without
	// the last words after.
	reTookAtLeast = lazyre.New(`^'([^']*)' took at least [0-9.]+ seconds to compile \(([0-9.]+)s\)`)
	// The compile time in a "Not writing … because it took < T seconds to compile (Ds)".
	reNotWrittenTime = lazyre.New(`seconds to\s+compile \(([0-9.]+)s\)`)
	// The header of an explanation, by release: "TRACING CACHE MISS at SITE because:"
	// (0.4.24–0.5), "… at SITE costing T ms because:" (0.6–0.8), "… at SITE:" (0.9+). In a
	// record that was wrapped or flattened (rich, JSON) the explanation follows on the same
	// line, after the call site's "(function)" and the colon.
	reTraceMiss     = lazyre.New(`^TRACING CACHE MISS at (.*?)(?: costing ([0-9.]+) ms)?(?: because)?:$`)
	reTraceMissFlat = lazyre.New(`^TRACING CACHE MISS at (.*?\))(?: costing ([0-9.]+) ms)?(?: because)?:\s*(.*)$`)
	// The function a tracing-cache miss is about: "never seen function: NAME id=…" (a first
	// trace, or a function re-defined on the same line), "for NAME defined at …" (a retrace),
	// and 0.4's "because: QUALNAME id=… defined at …".
	reNeverSeen = lazyre.New(`never seen function:\s+(\S+) id=`)
	reFor       = lazyre.New(`(?:^|\s)for (\S+) defined at `)
	reBecause   = lazyre.New(`because:\s+(\S+) id=\d+ defined at `)
	// Why an entry was not written (jax/_src/compiler.py _cache_write, compilation_cache.py
	// put_executable_and_time): "Not writing persistent cache entry for 'M' because it took < T
	// seconds to compile (Ts)", "… for 'M' because it uses host callbacks …" (0.4), "… with key 'K'
	// since its size (N bytes) is less than threshold (T bytes)", "… with key 'K' since cache is
	// disabled/not initialized", "… since process_id != 0".
	reNotWritten = lazyre.New(`^Not writing persistent cache entry(?: for '([^']*)'| with key '([^']*)')?`)
	// warnings.warn of jax/_src/compiler.py: "Error reading persistent compilation cache entry for
	// 'M': TYPE: MESSAGE" (a deserialisation failure is one), "Error writing …".
	reCacheError = lazyre.New(`Error (reading|writing) persistent compilation cache entry for '([^']*)'`)
	// jax._src.cache_key's debug log (JAX_DEBUG_LOG_MODULES=jax._src.cache_key): "get_cache_key
	// hash of serialized PART: HEX" for each part of the key, and "Including XLA flag in cache key:
	// FLAG" for each flag hashed into it.
	reKeyPart = lazyre.New(`^get_cache_key hash of serialized (.+?): ([0-9a-f]+)\s*$`)
	reKeyFlag = lazyre.New(`^Including XLA flag in cache key: (\S+)`)
	// Where the lines of an explanation began, to split one that a log handler flattened.
	reExplanationBreak = lazyre.New(`\s+(all previously seen cache keys|different input types:|different input pytree:|\* at |never seen |but seen another function|closest seen input|Tracing context doesn't match|explanation unavailable|cache miss explanation unavailable)`)
)

// messages is how recomp reads JAX's log.
var messages = &logscan.Framework{
	Name: Name,
	Anchors: []string{
		"ompilation",         // Finished XLA compilation, persistent compilation cache
		"OMPILATION",         // PERSISTENT COMPILATION CACHE MISS
		"Compiling ",         // Compiling jit(f) with global shapes
		"TRACING CACHE",      // TRACING CACHE MISS (jax_explain_cache_misses)
		"Finished tracing ",  // the tracing stage's time
		"MLIR module conv",   // the lowering stage's time
		"istent cache",       // Not writing persistent cache entry, wrapped or not
		"get_cache_key",      // jax._src.cache_key's debug log
		"flag in cache key",  // Including XLA flag in cache key
		"seconds to compile", // 'M' took at least T seconds to compile (Ds)
	},
	Begins: []string{"Compiling "},
	Heads: []string{"TRACING CACHE MISS at ", "Compiling ", "Finished XLA compilation of ", "Persistent compilation cache hit ",
		"PERSISTENT COMPILATION CACHE MISS ", "Writing ", "Finished tracing ", "Finished jaxpr to MLIR module conversion ",
		"Not writing persistent cache entry", "Error reading persistent compilation cache entry",
		"Error writing persistent compilation cache entry", "get_cache_key hash of serialized ", "Including XLA flag in cache key: ",
		"Not writing persistent cache"},
	Loggers:     map[string]logscan.Producer{"jax": logscan.ProducerJAX, "jaxlib": logscan.ProducerJAX},
	DropRepeats: []logscan.Producer{logscan.ProducerJAX},
	Rules: []logscan.Rule{
		{Prefix: "Compiling ", Handle: compiling},
		{Prefix: "Finished XLA compilation of ", Handle: func(c *logscan.Context, msg string) bool {
			m := reFinished.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			c.Emit(logscan.Event{Kind: logscan.RequestDone, Producer: logscan.ProducerJAX, Signal: "jax:finished_xla", Module: ModuleName(m[1]),
				Duration: seconds(m[2])})
			return true
		}},
		{Prefix: "Finished tracing ", Handle: stage(reTraced, "jax:traced", "trace", func(s string) string { return s })},
		{Prefix: "Finished jaxpr to MLIR module conversion ", Handle: stage(reLowered, "jax:lowered", "lower", ModuleName)},
		{Prefix: "Persistent compilation cache hit", Handle: cacheLine(reHit, logscan.CacheHit, "jax:persistent_hit")},
		{Prefix: "PERSISTENT COMPILATION CACHE MISS ", Handle: cacheLine(reMiss, logscan.CacheMiss, "jax:persistent_miss")},
		{Prefix: "Writing ", Contains: " to persistent compilation cache ", Handle: cacheLine(reWrite, logscan.CacheWrite, "jax:persistent_write")},
		{Prefix: "'", Contains: " seconds to compile (", Handle: func(c *logscan.Context, msg string) bool {
			m := reTookAtLeast.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			// The module was compiled (not read from the cache), in this time.
			c.Emit(logscan.Event{Kind: logscan.CompileEnd, Producer: logscan.ProducerJAX, Signal: "jax:compile_time", Module: m[1], Duration: seconds(m[2])})
			return true
		}},
		{Prefix: "Not writing persistent cache", Handle: func(c *logscan.Context, msg string) bool {
			// A record a terminal or a paste wrapped goes on, in lower case, on the lines after.
			c.Hold(msg, continuesSentence, func(c *logscan.Context, lines []string) { notWritten(c, joinWrapped(lines)) })
			return true
		}},
		{Contains: " persistent compilation cache entry for '", Handle: cacheError},
		{Prefix: "get_cache_key hash of serialized ", Handle: func(c *logscan.Context, msg string) bool {
			m := reKeyPart.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			c.Emit(logscan.Event{Kind: logscan.CacheKeyPart, Producer: logscan.ProducerJAX, Signal: "jax:cache_key_part", Detail: m[1], Hash: m[2]})
			return true
		}},
		{Prefix: "Including XLA flag in cache key: ", Handle: func(c *logscan.Context, msg string) bool {
			m := reKeyFlag.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			c.Emit(logscan.Event{Kind: logscan.CacheKeyFlag, Producer: logscan.ProducerJAX, Signal: "jax:cache_key_flag", Detail: m[1]})
			return true
		}},
		{Prefix: "TRACING CACHE MISS at ", Handle: func(c *logscan.Context, msg string) bool {
			// The explanation follows on indented lines (or, in a wrapped record, on this one).
			c.HoldKeeping(msg, continuesExplanation, namesChange, tracingMiss)
			return true
		}},
	},
}

// argsWording is the signal of 0.2's (to 0.3.24's) request, "Compiling NAME (ID) for args T.":
// the early releases that printed it logged no "Finished XLA compilation" after it.
const argsWording logscan.Signal = "jax:compiling_args"

func compiling(c *logscan.Context, msg string) bool {
	m := reCompiling.FindStringSubmatch(msg)
	if m == nil {
		return false
	}
	module := ModuleName(m[1])
	if m[3] != "" { // pmap's own wording: the function is compiled for N devices
		module = "pmap_" + strings.TrimPrefix(module, "jit_")
	}
	sig := logscan.Signal("jax:compiling")
	if m[4] == "" && m[5] == "" {
		sig = argsWording // "for args": a release that may not log the compilation's end
	}
	c.Emit(logscan.Event{Kind: logscan.CompileRequest, Producer: logscan.ProducerJAX, Signal: sig, Module: module,
		Signature: m[4] + m[5] + m[6]})
	return true
}

// cacheLine reads a persistent-cache line: the module (quoted or not, by release), and the key
// (its hash and file) when the line has one. re's groups are a quoted or bare module, and a
// quoted or bare key.
func cacheLine(re *lazyre.Regexp, kind logscan.Kind, sig logscan.Signal) func(*logscan.Context, string) bool {
	return func(c *logscan.Context, msg string) bool {
		m := re.FindStringSubmatch(msg)
		if m == nil {
			return false
		}
		m = append(m, "", "")
		module, key := m[1], m[2]+m[3]
		if re == reHit {
			module, key = m[1]+m[2], m[3]
		}
		c.Emit(logscan.Event{Kind: kind, Producer: logscan.ProducerJAX, Signal: sig, Module: module, Hash: key, Path: key})
		return true
	}
}

// continuesSentence says whether a line goes on with a sentence the line before it broke off: it
// begins in lower case, or with the quote or parenthesis of a name or number.
func continuesSentence(l []byte) bool {
	t := strings.TrimLeft(string(l), " ")
	return t != "" && (t[0] >= 'a' && t[0] <= 'z' || t[0] == '\'' || t[0] == '(' || t[0] == '<')
}

// joinWrapped is a record's lines as the one line they were before they were wrapped.
func joinWrapped(lines []string) string {
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, " ")
}

// stage is a rule's handler for JAX's record that a stage before compiling finished: re's
// groups are what it is about (named by module) and its time in seconds.
func stage(re *lazyre.Regexp, sig logscan.Signal, phase string, module func(string) string) func(*logscan.Context, string) bool {
	return func(c *logscan.Context, msg string) bool {
		m := re.FindStringSubmatch(msg)
		if m == nil {
			return false
		}
		c.Emit(logscan.Event{Kind: logscan.CompileStage, Producer: logscan.ProducerJAX, Signal: sig, Phase: phase,
			Module: module(m[1]), Duration: seconds(m[2])})
		return true
	}
}

// notWritten reads JAX's statement that it did not write a compiled executable to the
// persistent cache: the module (or the key, whose name part is the module), and its words.
func notWritten(c *logscan.Context, msg string) bool {
	m := reNotWritten.FindStringSubmatch(msg)
	if m == nil {
		return false
	}
	ev := logscan.Event{Kind: logscan.CacheNotWritten, Producer: logscan.ProducerJAX, Signal: "jax:not_written", Module: m[1],
		Hash: m[2], Detail: strings.TrimSpace(msg)}
	if t := reNotWrittenTime.FindStringSubmatch(msg); t != nil {
		ev.Duration = seconds(t[1]) // the compilation's own time
	}
	if ev.Module == "" && ev.Hash != "" {
		ev.Module = KeyModule(ev.Hash)
	}
	c.Emit(ev)
	return true
}

// cacheError reads JAX's warning that it could not read or write a persistent-cache entry.
func cacheError(c *logscan.Context, msg string) bool {
	i := strings.Index(msg, "Error reading persistent compilation cache entry")
	if i < 0 {
		i = strings.Index(msg, "Error writing persistent compilation cache entry")
	}
	if i < 0 {
		return false
	}
	msg = strings.TrimSpace(msg[i:])
	m := reCacheError.FindStringSubmatch(msg)
	if m == nil {
		return false
	}
	kind, sig := logscan.CacheReadError, logscan.Signal("jax:cache_read_error")
	if m[1] == "writing" {
		kind, sig = logscan.CacheNotWritten, "jax:cache_write_error"
	}
	c.Emit(logscan.Event{Kind: kind, Producer: logscan.ProducerJAX, Signal: sig, Module: m[2], Detail: msg})
	return true
}

// KeyModule is the module a persistent-cache key names: JAX's keys are "MODULE-SHA256".
func KeyModule(key string) string {
	if i := strings.LastIndexByte(key, '-'); i > 0 && len(key)-i-1 == 64 {
		return key[:i]
	}
	return ""
}

// continuesExplanation says whether a line continues a tracing-cache-miss explanation: an
// indented line, or one of the few JAX 0.4 printed without indentation.
func continuesExplanation(l []byte) bool {
	s := string(l)
	// a repr JAX prints whole (flax nnx's GraphDef) closes its nested parts on lines of their own,
	// unindented: "), NodeDef(", ")], attributes=[…"
	return logscan.Indented(l, 2) || len(s) > 0 && (s[0] == ')' || s[0] == ']' || s[0] == '}') ||
		strings.HasPrefix(s, "explanation unavailable!") ||
		strings.HasPrefix(s, "where weak_type=") || strings.HasPrefix(s, "weak_type=False means")
}

// namesChange says whether a line of a long explanation names what changed: in the pytree
// metadata JAX prints whole (a flax nnx GraphDef, over a hundred lines), the attribute lists
// ("attributes=[…('temperature', Static(value=1.0))]"), the turn from the new metadata to the old
// (" and before ") and the sentence's end ("… does not match").
func namesChange(l string) bool {
	return strings.Contains(l, "attributes=[") || strings.Contains(l, " and before ") || strings.Contains(l, "does not match")
}

// tracingMiss classifies a JAX tracing-cache-miss explanation: a retrace of the function it
// names, or its first trace ("never seen function" without the hint that it is being
// re-defined). A function JAX explains is the user's own: JAX 0.5+ explains no function of
// its own, and a 0.4 explanation of one says where it is defined.
func tracingMiss(c *logscan.Context, lines []string) {
	first := strings.TrimSpace(lines[0])
	m := reTraceMiss.FindStringSubmatch(first)
	if m == nil {
		if m = reTraceMissFlat.FindStringSubmatch(first); m == nil {
			return
		}
	} else {
		m = append(m, "")
	}
	var body []string
	if rest := strings.TrimSpace(m[3]); rest != "" {
		body = append(body, rest) // a wrapped or JSON record: the explanation on one line
	}
	for _, l := range lines[1:] {
		l = strings.TrimSpace(l)
		switch {
		case l == "":
		case len(body) > 0 && wrapped(body[len(body)-1], l):
			body[len(body)-1] += " " + l // a sentence JAX wrapped onto the next line
		default:
			body = append(body, l)
		}
	}
	reason := strings.Join(body, "\n")
	flat := strings.Join(body, " ")
	if len(lines) == 1 && len(body) == 1 {
		reason = reExplanationBreak.ReplaceAllString(reason, "\n$1") // a flattened record: its lines again
	}
	fn := ""
	for _, re := range []*lazyre.Regexp{reFor, reNeverSeen, reBecause} {
		if f := re.FindStringSubmatch(flat); f != nil {
			fn = f[1]
			break
		}
	}
	kind := logscan.Retrace
	if strings.Contains(flat, "never seen function") && !strings.Contains(flat, "re-defined") {
		kind = logscan.Trace
	}
	ev := logscan.Event{Kind: kind, Producer: logscan.ProducerJAX, Signal: "jax:tracing_cache_miss", Path: m[1], Module: python.Name(fn), Reason: reason,
		Duration: millis(m[2]), // what the miss cost (0.6–0.8)
		Library:  strings.Contains(flat, "/jax/_src/") || strings.Contains(flat, "/site-packages/jax/")}
	// A retrace of a function object JAX had traced before ("all previously seen cache keys
	// differ", 0.4's "closest seen input type signature"). Not "never seen function … but seen
	// another function defined on the same line": that line is the call site, which a library's
	// wrapper (flax nnx.jit) shares between different functions.
	ev.SeenBefore = kind == logscan.Retrace && !strings.Contains(flat, "never seen function")
	if kind == logscan.Trace {
		ev.Detail = "first trace of " + ev.Module
	}
	c.Emit(ev)
}

// itemStart is how the lines of a tracing-cache-miss explanation begin when they start an item
// of their own (a sentence that goes on from the line before begins otherwise).
var itemStart = lazyre.New(`^(?:never seen|for \S+ defined at|all previously seen|different input|\* |but seen another|closest seen|tracing context|Tracing context|explanation unavailable|cache miss explanation|where weak_type|weak_type=)`)

// wrapped says whether line continues the sentence of prev: JAX wraps a long sentence ("but
// seen another function defined on the same line; maybe the function is / being re-defined
// repeatedly, preventing caching?"), and its lines are read as one.
func wrapped(prev, line string) bool {
	if prev == "" || strings.ContainsAny(prev[len(prev)-1:], ":.?!") || itemStart.MatchString(line) {
		return false
	}
	return line[0] >= 'a' && line[0] <= 'z'
}

// ModuleName turns the name JAX logs ("jit(step)", or a bare "step" before 0.4.30) into the
// module name it gives XLA and its dumps ("jit_step"): mlir.sanitize_name replaces every
// character other than a letter, digit, '_', '.' or '-' with '_', and the trailing '_' are
// dropped (JAX 0.4 kept them: its dumps say jit__lambda_, which FunctionKey matches).
func ModuleName(name string) string {
	bare := !strings.Contains(name, "(")
	b := []rune(name)
	for i, r := range b {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.' || r == '-') {
			b[i] = '_'
		}
	}
	if bare {
		return "jit_" + string(b) // JAX 0.4 logged the bare name and kept a trailing '_'
	}
	return strings.TrimRight(string(b), "_")
}

// millis reads JAX's "costing T ms" (0 when absent).
func millis(v string) time.Duration {
	ms, _ := strconv.ParseFloat(v, 64)
	return time.Duration(ms * float64(time.Millisecond))
}

// seconds reads JAX's "in T sec".
func seconds(v string) time.Duration {
	secs, _ := strconv.ParseFloat(v, 64)
	return time.Duration(secs * float64(time.Second))
}
