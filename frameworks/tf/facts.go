package tf

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/recomp/recomp/frameworks/cause"
	"github.com/recomp/recomp/frameworks/internal/python"
	"github.com/recomp/recomp/internal/lazyre"
)

// traceWords begins the explanation recomp reads from TF's "Creating new FuncGraph" record
// (messages' funcGraph): the parameters of the new trace, one a line.
const traceWords = "new trace for input parameters:"

// A parameter of a trace as TF lists it: "x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(32, 8),
// dtype=tf.float32, name=None)", "lr (POSITIONAL_OR_KEYWORD): Literal[0.1]".
var (
	reParam      = lazyre.New(`^(\w+) \((?:POSITIONAL_OR_KEYWORD|POSITIONAL_ONLY|KEYWORD_ONLY|VAR_POSITIONAL|VAR_KEYWORD)\): (.+)$`)
	reTensorSpec = lazyre.New(`^TensorSpec\(shape=\(([^)]*)\), dtype=tf\.(\w+)`)
	reLiteral    = lazyre.New(`^Literal\[(.*)\]$`)
)

// dtypes are TF's dtype names as XLA prints the element types.
var dtypes = map[string]string{"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64", "int8": "s8",
	"int16": "s16", "int32": "s32", "int64": "s64", "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
	"bool": "pred", "complex64": "c64", "complex128": "c128"}

// facts is Framework.Facts: TF's warning that a function retraced on many of its last calls (the
// retracing event's words, messages' reRetrace), or the parameters TF lists for a new trace of a tf.function, each what
// it was called with this time (New: a tensor's type as XLA prints it, f32[32,8], or a Python
// value's repr) with TF's line (Said). TF's words name no earlier trace, so no fact says what
// changed (Old, Kind and Change are ""): the ledger holds them against the function's trace
// before (frameworks.Against).
func facts(why string) []cause.Fact {
	if m := reRetrace.FindStringSubmatch(why); m != nil {
		return []cause.Fact{retracing(m, why)}
	}
	rest, ok := strings.CutPrefix(why, traceWords)
	if !ok {
		return nil
	}
	var out []cause.Fact
	for _, line := range strings.Split(rest, "\n") {
		line = strings.TrimSpace(line)
		m := reParam.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		f := cause.Fact{Arg: m[1], New: paramValue(m[2]), Said: line}
		if _, err := strconv.ParseFloat(f.New, 64); err == nil && reLiteral.MatchString(m[2]) {
			f.Kind = cause.Constant // a Python number the trace baked in (reported only once it changed)
		}
		out = append(out, f)
	}
	return out
}

// paramValue is what a trace's parameter was called with: a tensor's type as XLA prints it
// (TensorSpec(shape=(32, 8), dtype=tf.float32) is f32[32,8]; an unknown dimension is ?), a
// Python value's repr (Literal[0.1] is 0.1), else TF's words, shortened.
func paramValue(v string) string {
	if m := reTensorSpec.FindStringSubmatch(v); m != nil {
		elem := dtypes[m[2]]
		if elem == "" {
			elem = m[2]
		}
		var dims []string
		for _, d := range strings.Split(m[1], ",") {
			if d = strings.TrimSpace(d); d == "None" {
				dims = append(dims, "?")
			} else if d != "" {
				dims = append(dims, d)
			}
		}
		return elem + "[" + strings.Join(dims, ",") + "]"
	}
	if m := reLiteral.FindStringSubmatch(v); m != nil {
		v = m[1]
	}
	if len(v) > 80 {
		v = v[:77] + "..."
	}
	return v
}

// retracing is TF's warning that a function traced again on N of its last M calls (reRetrace's
// match m of the words said) as a fact: the function (Arg), the counts, and the warning in
// recomp's words; Arg is the function's own name (train_step of varying_shapes.<locals>.train_step),
// as its graphs are named. It names no argument and no type: TF's warning says neither.
func retracing(m []string, said string) cause.Fact {
	traced, _ := strconv.Atoi(m[1])
	calls, _ := strconv.Atoi(m[2])
	fn := m[3]
	return cause.Fact{Arg: python.Name(fn), Traced: traced, Calls: calls, Said: said,
		Change: fmt.Sprintf("tf.function `%s` traced again on %d of its last %d calls", fn, traced, calls)}
}
