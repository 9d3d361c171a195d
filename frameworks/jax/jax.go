// Package jax is recomp's unit for JAX (and what is built on it: flax, optax, equinox, Keras on
// the JAX backend): how its log reads, how it names the programs it compiles (jit_f, eager
// one-op programs), what `recomp run` switches on, and its persistent cache.
package jax

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/recomp/recomp/frameworks/cause"
	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/frameworks/internal/python"
	"github.com/recomp/recomp/hlo"
	"github.com/recomp/recomp/internal/lazyre"
	"github.com/recomp/recomp/logscan"
)

// Name is the unit's name.
const Name = "jax"

// Framework is JAX.
var Framework = &framework.Framework{
	Name:      Name,
	Title:     "JAX",
	Producers: []logscan.Producer{logscan.ProducerJAX},
	Log:       messages,
	// What JAX's compile records are about (its programs, stages and caches) and what they say
	// is done to them: a line with both that no rule read is a record of a wording recomp does
	// not know.
	Vocabulary: logscan.Vocabulary{
		Subjects: []string{"jit(", "jit_", "pjit", "pmap", "jaxpr", "MLIR", "istent cache", "ersistent compilation", "PERSISTENT",
			"TRACING", "tracing cache", "cache_key", "cache key"},
		Actions: []string{"ompil", "OMPIL", "trac", "TRAC", "cache", "CACHE"},
		// TRACING CACHE MISS, "tracing", "traced" besides compiling and cache hits
		Sweep: slices.Concat(framework.CompileForms, framework.CompileFormsUpper, []string{"racing ", "TRACING", "traced"},
			framework.CacheForms, framework.CacheFormsUpper),
		// jax._src.cache_key's hash of each part after serialising it (the one before is read),
		// and the flags it leaves out of the key.
		Known: []string{"get_cache_key hash after serializing ", "Not including XLA flag in cache key"},
	},
	Identity: framework.Identity{
		// jax.grad's backward pass: ops named transpose(jvp(…)) under the jitted function (JAX
		// 0.4 names them as its forward ops: no graph of JAX's is known to compute no gradient)
		Gradient: func(m hlo.Meta) (grad, ours bool) {
			grad = strings.Contains(m.OpName, "transpose(jvp(")
			return grad, grad
		},
		FunctionKey: functionKey,
		Function:    function,
		Eager:       eager,
		BySignature: true,
		DumpProgram: func(_, family string) (string, bool) {
			// An eager one-op program is left out: no log says whose it is.
			return "", eager(family, "")
		},
	},
	Settings: []framework.Setting{
		{Name: "JAX_LOG_COMPILES", Value: "1", Prints: lazyre.New(`Compiling \S+ (?:\(\d+\) )?(?:with global shapes and types|for args)|` +
			`Finished tracing (?:\+ transforming )?\S+ for p?jit in|Finished jaxpr to MLIR module conversion \S+ in|Finished XLA compilation of \S+ in|` +
			`Persistent compilation cache hit for|Writing \S+ to persistent compilation cache with key|Not writing persistent cache entry`), Off: falsy},
		{Name: "JAX_EXPLAIN_CACHE_MISSES", Value: "1", Effect: "JAX compares each new trace with the ones it has seen: a little tracing time; " +
			"with a persistent cache it also says which entries it did not write and why",
			Prints: lazyre.New(`TRACING CACHE MISS at |PERSISTENT COMPILATION CACHE MISS for `), Continued: true},
		// Why a persistent-cache entry was missed: the hash of each part of every cache key and
		// each XLA flag hashed into it (jax/_src/cache_key.py), compared across runs by recomp diff.
		// JAX >= 0.5 keys every compilation, persistent cache or not: the probe keeps the lines
		// (and the second hashing) to a run with a cache folder set (Narrowed).
		{Name: "JAX_DEBUG_LOG_MODULES", Value: "jax._src.cache_key", Effect: "with a persistent compilation cache on, JAX logs the hash of each " +
			"part of every cache key and each XLA flag it includes: about 20 lines per compilation (JAX >= 0.5 prints each twice), and each part " +
			"is hashed a second time for the log (the computation's serialised module too); under the probe, nothing while no cache folder is set",
			Prints: lazyre.New(`jax\._src\.cache_key|get_cache_key hash|flag in cache key: `), Narrowed: true},
		{Name: "JAX_LOGGING_LEVEL", Value: "INFO", Effect: "JAX >= 0.5 prints the cache-key lines only with a level set: JAX's records then go " +
			"through JAX's own handler with its prefix (LEVEL:time:logger:line:), its INFO records (backend and cache set-up) appear, " +
			"and it sets the C++ log level to INFO as TF_CPP_MIN_LOG_LEVEL=0 does (not in a session inside the process, pytest's: the probe sets " +
			"it back, as those lines go to the process's own output); a program that configures logging itself prints JAX's records twice",
			// Narrowed: its C++ half, which only recomp run reads (framework.Setting.Native).
			Prints: lazyre.New(`^(?:DEBUG|INFO):\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+:jax\.`), Narrowed: true},
	},
	CacheFolders: func(name, value string) []string {
		if name == "JAX_COMPILATION_CACHE_DIR" {
			return []string{value}
		}
		return nil
	},
	// JAX logs "Finished XLA compilation" after every "Compiling" (a persistent-cache hit too):
	// a request without it at the end of the log was still compiling. Not 0.2's "for args"
	// (EndNotLogged): those releases logged no end.
	Unfinished: func(logscan.Producer) (string, string, bool) {
		return "JAX had not finished compiling this program where the log stops (its \"Compiling\" line has no \"Finished XLA compilation\" after it)",
			"let the run get past the compilation (or find why it hangs: XLA's slow-compile alarm, a dump with XLA_FLAGS=--xla_dump_to=DIR)", true
	},
	Probe: &framework.Probe{Package: "jax", Hook: probeHook, Function: "_on_jax", Records: "each JAX compilation",
		Attach: framework.AttachInOrder, Event: "compile", Traces: "trace", ModuleName: ModuleName, Stages: true, Compiles: true, StandIn: true},
	CacheEntries: []framework.CacheEntry{{Kind: "jax", Names: entryNames, Key: entryKey}},
	KeyedCache:   persistentCache{},
	Defined:      defined,
	Anonymous:    anonymous,
	EndNotLogged: []logscan.Signal{argsWording},
	Packages:     []string{"jax", "jaxlib", "flax", "optax"},
	Explains:     explains,
	Facts:        facts,
	ClosestKey:   func(why string) bool { return strings.Contains(why, "all previously seen cache keys differ") },
	Framing: func(line string) bool {
		return strings.HasPrefix(line, "for ") && strings.Contains(line, " defined at ") ||
			strings.HasPrefix(line, "all previously seen cache keys differ")
	},
	ShowSignature:   func(sig string) string { return reShapedArray.ReplaceAllString(sig, "$1") },
	SignatureArrays: signatureArrays,
	MetadataAdvice: func(path string) string {
		if strings.Contains(path, "_graphdef") {
			return "a plain Python attribute of a flax nnx Module is part of its graph definition, static to nnx.jit: each new value " +
				"traces and compiles the step again; hold it in an nnx.Variable (set its .value) or pass it as an argument, or keep it fixed"
		}
		return "a static field of an argument's pytree (its metadata: a dataclass field marked static, a module's plain attribute) " +
			"compiles again at each new value: make it an array leaf or pass it as an argument, or keep it fixed"
	},
	Static: &framework.Static{Word: "static argument", PerValue: "one compilation per value", Advice: staticAdvice},
	AttributeAdvice: func(name string) string {
		return fmt.Sprintf("a plain Python attribute of a module is static to its jit: each new value retraces and compiles the step; "+
			"hold `%s` in a variable (flax nnx: nnx.Variable(jnp.asarray(...)), set its .value) or pass it as an argument, or keep it fixed", name)
	},
	Advice: framework.Advice{
		Rewrapped:  "jax.jit of a new lambda or closure",
		StateFirst: "JAX: opt_state = optimizer.init(params) outside the compiled step",
		Unused:     "JAX logs none",
		Evidence:   "JAX: JAX_LOG_COMPILES=1 (and JAX_EXPLAIN_CACHE_MISSES=1)",
		Signatures: "JAX: JAX_LOG_COMPILES=1",
		Compiles:   "jit",
		Recompiled: "run with jax.config.update('jax_explain_cache_misses', True) to have JAX name the argument that changed, " +
			"and dump the HLO (XLA_FLAGS=--xla_dump_to=DIR) for `recomp explain DIR`",
		Cache: "JAX: jax_compilation_cache_dir",
		GrowingCache: "allocate it once at its maximum length (jnp.zeros((max_len, …))) and write each step's row in place at a " +
			"position index passed as an array (jax.lax.dynamic_update_slice(buf, row, (i, 0)), or buf.at[i].set(row)), " +
			"masking the rows not yet written; then every step has one shape and the step compiles once",
		Causes: map[cause.Kind]string{
			"batch_size":      "drop the last partial batch, or pad it to the full batch with a mask (jnp.pad, and a weight of 0 for the padded rows)",
			"input_shape":     "pad to a few fixed sizes (jnp.pad with a mask) so that the jitted function sees only those shapes",
			"dtype":           "cast the inputs to one dtype before the jitted call (watch Python scalars' weak types and float64 from NumPy)",
			"constant_value":  "pass the value as an array argument (jnp.asarray(x)) instead of a static argument or a Python number the function closes over",
			"module_config":   "keep donate_argnums and the other jit options the same between calls",
			"graph_structure": "a static argument or Python control flow on a value changed the program: make it a traced argument, or keep it fixed",
			"identical": "jit once, outside the loop: a jax.jit (or a lambda, a closure) made anew is a new function to JAX, and compiles again; " +
				"and clear JAX's caches (jax.clear_caches()) only where the programs compiled so far are no longer needed: each compiles again after it",
			"static_argument": "each new value of a static argument (static_argnums, static_argnames) is a new trace and a new " +
				"compilation: pass a value that only feeds arithmetic (a step counter, a learning rate) as an array argument " +
				"(jnp.asarray(step)), and keep static only what takes a few values (a mode flag, a loop count from a small set)",
			"python_value": "a Python number JAX reads while tracing is baked into the program, and each new value compiles again: " +
				"pass it as an array argument (jnp.asarray(x)) instead of a static argument or a number the function closes over, or keep it fixed",
			"pytree_change": "keep the structure of the arguments fixed: give every batch the same keys (a weights entry of ones " +
				"from the start, not added part-way) and never switch an argument between None and a value; each new structure compiles again",
			cause.FunctionRebuilt: "jit once, outside the loop, and pass what changes (a learning rate, a flag) as an array argument: " +
				"a jax.jit, lambda or closure made anew is a new function to JAX, and compiles again; and clear JAX's caches " +
				"(jax.clear_caches()) only where the programs compiled so far are no longer needed: each compiles again after it",
		},
	},
}

var (
	rePytreePath = lazyre.New(`at input path (\S+), now (.+?) and before (.+?), so `)
	reKeySets    = lazyre.New(`symmetric difference of key sets: (\{.*?\})`)
	reChildren   = lazyre.New(`with (\d+) children`)
	reClass      = lazyre.New(`<class '([^']+)'>`)
	reArgPath    = lazyre.New(`^\[0\]\[(\d+)\]`)
)

// explains reads JAX's explanation of a tracing-cache miss for the user's construct it names:
// a static argument (it found the input pytree, the argument names and their types unchanged:
// "cache miss explanation unavailable", "explanation unavailable!" in later releases), a
// pytree change ("different input pytree", with the path and, for dicts, the keys) or a weak
// type (fact).
func explains(why string) (kind cause.Kind, ch, said string, ok bool) {
	if f, ok := weakType(why); ok {
		return f.Kind, f.Change, f.Said, true
	}
	switch {
	case strings.Contains(why, "explanation unavailable"):
		said = "cache miss explanation unavailable"
		if strings.Contains(why, "explanation unavailable!") {
			said = "explanation unavailable!"
		}
		return cause.StaticArgument, "a static argument took a new value (JAX found the input pytree, the argument names and their types unchanged)", said, true
	case strings.Contains(why, "different input pytree"):
		m := rePytreePath.FindStringSubmatch(why)
		if m == nil {
			return cause.Pytree, "the input pytree changed", "different input pytree", true
		}
		said = strings.TrimSpace(m[0][:len(m[0])-len(", so ")])
		where := "input path " + m[1]
		if a := reArgPath.FindStringSubmatch(m[1]); a != nil {
			where += " (positional argument " + a[1] + ", counted from 0)"
		}
		if k := reKeySets.FindStringSubmatch(why); k != nil {
			said += ", … " + k[0]
			verb := "changed"
			if n, b := reChildren.FindStringSubmatch(m[2]), reChildren.FindStringSubmatch(m[3]); n != nil && b != nil {
				switch {
				case len(n[1]) > len(b[1]) || len(n[1]) == len(b[1]) && n[1] > b[1]:
					verb = "added"
				case n[1] != b[1]:
					verb = "removed"
				}
			}
			return cause.Pytree, fmt.Sprintf("%s: key %s %s", where, k[1], verb), said, true
		}
		return cause.Pytree, fmt.Sprintf("%s: %s → %s", where, className(m[3]), className(m[2])), said, true
	}
	return "", "", "", false
}

// className is a pytree node as JAX prints it, its class name without <class '…'>.
func className(s string) string {
	return strings.TrimSpace(reClass.ReplaceAllString(s, "$1"))
}

// functionKey: JAX 0.4's dumps keep a trailing '_' its logs do not (jit__lambda_).
func functionKey(family string) (string, bool) {
	if strings.HasPrefix(family, "jit_") || strings.HasPrefix(family, "pmap_") {
		return strings.TrimRight(family, "_"), true
	}
	return "", false
}

// function is the function a JAX module compiles: jit_train_step is train_step, as JAX's
// explanations name it (and JAX 0.4's bare compile requests).
func function(module string) (string, bool) {
	for _, p := range []string{"jit_", "pjit_", "pmap_", "xmap_"} {
		if name, ok := strings.CutPrefix(module, p); ok {
			return name, true
		}
	}
	return "", false
}

// reDefined finds, in a tracing-cache-miss explanation, the function JAX traced and the file that
// defines it: "never seen function: NAME id=N defined at FILE:LINE", "for NAME defined at
// FILE:LINE" (a retrace) and 0.4's "because: NAME id=N defined at FILE:LINE".
var reDefined = lazyre.New(`(?:never seen function:\s+|(?:^|\s)for |because:\s+)(\S+?)(?: id=\d+)? defined at (\S+):\d+`)

// reDefinedLambda is reDefined of a lambda, with its line.
var reDefinedLambda = lazyre.New(`(?:never seen function:\s+|(?:^|\s)for |because:\s+)(?:\S+\.)?<lambda>(?: id=\d+)? defined at (\S+):(\d+)`)

// anonymous is Framework.Anonymous: where the lambda a JAX explanation names is defined
// ("trainer.py:270"; Keras on JAX with flax nnx jits its train and test steps as lambdas).
func anonymous(why string) string {
	m := reDefinedLambda.FindStringSubmatch(why)
	if m == nil {
		return ""
	}
	return filepath.Base(m[1]) + ":" + m[2]
}

// defined is Framework.Defined: the function a JAX explanation names (its last name) and its file.
func defined(why string) (string, string) {
	m := reDefined.FindStringSubmatch(why)
	if m == nil {
		return "", ""
	}
	return python.Name(m[1]), m[2]
}

// staticAdvice is what to do about the static argument name whose new values compiled the
// function again; ints when every value was a Python int (a loop count).
func staticAdvice(name string, ints bool) string {
	adv := fmt.Sprintf("each new value of a static argument is a new trace and a new compilation: make `%s` a traced argument "+
		"(take it out of static_argnums/static_argnames and pass jnp.asarray(%s)), or keep it fixed; keep static only "+
		"what takes a few values (a mode flag, a loop count from a small set)", name, name)
	if ints {
		adv += "; a traced loop count makes lax.fori_loop a while loop (not reverse-differentiable): " +
			"else round it up to a few values and mask the extra iterations"
	}
	return adv
}

// falsy says whether JAX reads an environment variable's value as false (its bool_env: n, no,
// f, false, off, 0, in any case).
func falsy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "n", "no", "f", "false", "off", "0":
		return true
	}
	return false
}

// reArray is an array's dtype and shape in a JAX signature: float32[8,16], bool[], as probe.py's
// _shapes writes a traced call's arguments (no spaces).
var reArray = lazyre.New(`\b([a-z]+[0-9]*(?:_[a-z0-9]+)*)\[([0-9, ]*)\]`)

// maxArrays bounds the arrays read of one signature (the probe writes at most 32).
const maxArrays = 256

// signatureArrays are the dtypes and shapes a request's signature names, in order, as the
// probe's trace records list them (framework.Framework.SignatureArrays).
func signatureArrays(sig string) []string {
	ms := reArray.FindAllStringSubmatch(sig, maxArrays)
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		out = append(out, m[1]+"["+strings.ReplaceAll(m[2], " ", "")+"]")
	}
	return out
}

// reShapedArray reads an argument of JAX's logged signature: ShapedArray(float32[8,4]).
var reShapedArray = lazyre.New(`ShapedArray\(([^()]*)\)`)
