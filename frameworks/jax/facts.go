package jax

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/recomp/recomp/frameworks/cause"
	"github.com/recomp/recomp/internal/lazyre"
)

// facts is Framework.Facts: JAX's explanation of a tracing-cache miss read into what it says,
// strongest first: the construct it names (a weak type, a static argument, a pytree, with the
// pytree metadata's path and static attributes), a function made anew, each argument's new
// type ("* at x, now f32[24,8] and before f32[32,8]"), and whether it is a first trace.
func facts(why string) []cause.Fact {
	var out []cause.Fact
	if f, ok := weakType(why); ok {
		out = append(out, f)
	}
	if kind, ch, said, ok := explains(why); ok && kind != cause.WeakType {
		f := cause.Fact{Kind: kind, Change: ch, Said: said}
		if kind == cause.Pytree {
			f.Metadata, f.Attributes = metadataPath(why), metadataStatics(why)
		}
		out = append(out, f)
	}
	if f, ok := rebuilt(why); ok {
		out = append(out, f)
	}
	if strings.Contains(why, "* at ") {
		out = append(out, typeChanges(why)...)
	}
	if strings.Contains(why, "never seen function") {
		f := cause.Fact{First: true, Said: "never seen function"}
		if m := reNeverSeenFn.FindStringSubmatch(why); m != nil {
			f.Object = m[2]
		}
		out = append(out, f)
	}
	return out
}

// typed is a type as JAX prints one: a shaped array (f32[4,55,8], whose commas are not the
// sentence's), or any other word.
const typed = `[a-z]+\d*\[[\d,\s]*\](?:\{[^}]*\})?|[^\s,;]+`

// An argument's new type: "* at x, now f32[24,8] and before f32[32,8]" (0.5+), 0.4's "* at x,
// seen f32[32,8], but now given f32[24,8]".
var (
	reNowBefore = lazyre.New(`\* at ([^,]+), now (` + typed + `) and before (` + typed + `)`)
	reSeenNow   = lazyre.New(`\* at ([^,]+), seen (` + typed + `), but now given (` + typed + `)`)
	reShape     = lazyre.New(`^([a-z]+\d*)\[([\d,]*)\]`)
)

// typeChanges are the arguments JAX names with a new type, those it words "now … and before …"
// first, each with the kind two dumps would show.
func typeChanges(why string) []cause.Fact {
	var out []cause.Fact
	for _, m := range reNowBefore.FindAllStringSubmatch(why, -1) {
		out = append(out, typeChange(m[1], m[3], m[2], m[0]))
	}
	for _, m := range reSeenNow.FindAllStringSubmatch(why, -1) {
		out = append(out, typeChange(m[1], m[2], m[3], m[0]))
	}
	if sameBatch(out) {
		for i := range out {
			out[i].Kind = cause.BatchSize
		}
	}
	return out
}

// sameBatch says whether the arguments JAX names with a new type all changed their leading
// dimension the same way, in the same dtype and rank, as two dumps compared call a batch
// (diff's shape rule): a last batch with fewer rows whose padded length changed with it is the
// batch first, whatever one argument's other dimensions did. A leading dimension scaled as
// another was (every side of a volume doubled) is one resize, not a batch.
func sameBatch(fs []cause.Fact) bool {
	old, new := "", ""
	for _, f := range fs {
		o, n := reShape.FindStringSubmatch(f.Old), reShape.FindStringSubmatch(f.New)
		if o == nil || n == nil || o[1] != n[1] {
			return false
		}
		od, nd := strings.Split(o[2], ","), strings.Split(n[2], ",")
		if len(od) != len(nd) || o[2] == "" || od[0] == nd[0] || old != "" && (od[0] != old || nd[0] != new) {
			return false
		}
		old, new = od[0], nd[0]
		for i := 1; i < len(od); i++ {
			if od[i] != nd[i] && scaled(old, new, od[i], nd[i]) {
				return false
			}
		}
	}
	return old != ""
}

// scaled says whether a dimension went from a to b in the proportion the leading one went from
// old to new.
func scaled(old, new, a, b string) bool {
	o, errO := strconv.Atoi(strings.TrimSpace(old))
	n, errN := strconv.Atoi(strings.TrimSpace(new))
	x, errA := strconv.Atoi(strings.TrimSpace(a))
	y, errB := strconv.Atoi(strings.TrimSpace(b))
	return errO == nil && errN == nil && errA == nil && errB == nil && o*y == n*x
}

// typeChange is the fact of argument arg's new type: the kind of change between two typed shapes.
func typeChange(arg, old, new, said string) cause.Fact {
	arg = strings.TrimSpace(arg)
	return cause.Fact{Kind: cause.TypeKind(old, new), Arg: arg, Old: old, New: new, Said: strings.TrimPrefix(said, "* "),
		Change: fmt.Sprintf("%s: %s → %s", arg, old, new)}
}

// reNeverSeenFn reads JAX's "never seen function: NAME id=N defined at FILE:LINE".
var reNeverSeenFn = lazyre.New(`never seen function:?\s+(\S+)(?: id=(\d+))? defined at (\S+)`)

// rebuilt reads JAX's words that the function is made anew ("maybe the function is being
// re-defined repeatedly", "but seen another function defined on the same line").
func rebuilt(why string) (cause.Fact, bool) {
	if !strings.Contains(why, "re-defined") && !strings.Contains(why, "seen another function defined on the same line") {
		return cause.Fact{}, false
	}
	f := cause.Fact{Kind: cause.FunctionRebuilt, Change: "the function is made anew", Said: "seen another function defined on the same line"}
	if m := reNeverSeenFn.FindStringSubmatch(why); m != nil {
		site := m[3]
		f.Object = m[2]
		if i := strings.LastIndexByte(site, '/'); i >= 0 {
			site = site[i+1:]
		}
		f.Arg, f.Change = m[1], fmt.Sprintf("%s made anew (defined at %s)", m[1], site)
	}
	return f, true
}

// reMetadataPath reads JAX's "* at input path [0][0]._graphdef, now <class …> with pytree
// metadata": a pytree node whose metadata (static to jit: a flax nnx GraphDef, a dataclass's static
// fields) differs from the closest earlier key's.
var reMetadataPath = lazyre.New(`at input path (\S+), now .*? with pytree metadata`)

// metadataPath is the input path whose pytree metadata JAX said differs ("" when it said not).
func metadataPath(why string) string {
	if !strings.Contains(why, "with pytree metadata") {
		return ""
	}
	if m := reMetadataPath.FindStringSubmatch(why); m != nil {
		return m[1]
	}
	return ""
}

// reStaticAttr reads a static attribute in a pytree node's metadata as JAX prints it: flax nnx's
// GraphDef ('temperature', Static(value=1.0)).
var reStaticAttr = lazyre.New(`\('(\w+)', Static\(value=([^()]*?)\)\)`)

// metadataStatics reads JAX's "different input pytree … so the pytree node metadata does not
// match" for the static attributes whose values differ between the closest earlier key (before)
// and this call (now), in the order JAX printed them; nil when it names none.
func metadataStatics(why string) []cause.Attribute {
	if !strings.Contains(why, "pytree node metadata does not match") {
		return nil
	}
	_, rest, ok := strings.Cut(why, ", now ")
	if !ok {
		return nil
	}
	nowPart, beforePart, ok := strings.Cut(rest, " and before ")
	if !ok {
		return nil
	}
	read := func(s string) map[string]string {
		m := map[string]string{}
		for _, g := range reStaticAttr.FindAllStringSubmatch(s, -1) {
			m[g[1]] = g[2]
		}
		return m
	}
	now, before := read(nowPart), read(beforePart)
	var out []cause.Attribute
	for _, g := range reStaticAttr.FindAllStringSubmatch(nowPart, -1) {
		if b, ok := before[g[1]]; ok && b != now[g[1]] && !slices.ContainsFunc(out, func(a cause.Attribute) bool { return a.Name == g[1] }) {
			out = append(out, cause.Attribute{Name: g[1], Old: b, New: now[g[1]]})
		}
	}
	return out
}

// reWeakType reads JAX's "* at beta, now f32[]{weak_type=False} and before f32[]{weak_type=True}"
// (0.5+; 0.12 glues its link to the type's end) and 0.4's "* at beta, seen f32[]{weak_type=True},
// but now given f32[]{weak_type=False}": the same type, weakly typed one time and not the other.
var reWeakType = lazyre.New(`\* at ([^,]+), (now|seen) ([a-z]+\d*\[[\d,]*\])\{weak_type=(True|False)\},?(?: and before| but now given) ([a-z]+\d*\[[\d,]*\])\{weak_type=(True|False)\}`)

// weakType reads an explanation that names a weak type.
func weakType(why string) (cause.Fact, bool) {
	if !strings.Contains(why, "{weak_type=") {
		return cause.Fact{}, false
	}
	if m := reWeakType.FindStringSubmatch(why); m != nil && m[3] == m[5] && m[4] != m[6] {
		arg, typ := strings.TrimSpace(m[1]), m[3]
		weakNow := m[4] == "True" // 0.5+: now, then before
		if m[2] == "seen" {
			weakNow = m[6] == "True" // 0.4: seen (before), then now
		}
		weak, strong := "a Python scalar (weakly typed "+typ+")", "a typed "+typ+" (a NumPy or JAX scalar)"
		from, to := weak, strong
		if weakNow {
			from, to = strong, weak
		}
		said := strings.TrimSpace(strings.TrimPrefix(m[0], "* "))
		return cause.Fact{Kind: cause.WeakType, Arg: arg, Said: said,
			Change: fmt.Sprintf("`%s`: %s → %s, the same shape and dtype", arg, from, to),
			Advice: weakTypeAdvice(arg, typ)}, true
	}
	return cause.Fact{}, false
}

// weakTypeAdvice is JAX's remedy for an argument passed weakly typed one call and typed another.
func weakTypeAdvice(arg, typ string) string {
	dtype := map[string]string{"f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
		"s8": "int8", "s16": "int16", "s32": "int32", "s64": "int64", "u8": "uint8", "u32": "uint32"}[typ[:strings.IndexByte(typ, '[')]]
	scalar, how := "float", fmt.Sprintf("jnp.asarray(%s) with one dtype", arg)
	if strings.HasPrefix(dtype, "int") || strings.HasPrefix(dtype, "uint") {
		scalar = "int"
	}
	if dtype != "" {
		how = fmt.Sprintf("jnp.%s(%s) (or jnp.asarray(%s, jnp.%s))", dtype, arg, arg, dtype)
	}
	return fmt.Sprintf("pass `%s` with the same type every call: %s everywhere, or a Python %s every time; a Python scalar is "+
		"weakly typed and a NumPy or JAX scalar is not, so switching between them is a new cache key and a new compilation of "+
		"the same graph", arg, how, scalar)
}
