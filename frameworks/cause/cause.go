// Package cause names the kinds of cause recomp gives for a program compiled again: the ones a
// comparison of two dumps names (package diff), and the ones only a framework's own words show
// (package verdict). The names are part of the JSON contract. It sits below the units so that
// each unit gives its advice by kind (framework.Advice.Causes), checked by the compiler.
package cause

// Kind names a reason why a program compiled again.
type Kind string

// The kinds two dumps compared show, in the order diff ranks them.
const (
	Dtype          Kind = "dtype"
	Sharding       Kind = "sharding"
	BatchSize      Kind = "batch_size"
	InputShape     Kind = "input_shape"
	Constant       Kind = "constant_value"
	ModuleConfig   Kind = "module_config"
	Layout         Kind = "layout"
	GraphStructure Kind = "graph_structure"
	Identical      Kind = "identical"
)

// The kinds only a framework's words show.
const (
	// FunctionRebuilt: the function object is new (a jax.jit, a lambda or a closure made
	// again), so nothing compiled for the old one is reused.
	FunctionRebuilt Kind = "function_rebuilt"
	// StaticArgument: a static argument (JAX static_argnums/static_argnames) took a new value.
	StaticArgument Kind = "static_argument"
	// Pytree: the input pytree changed (a dict gained or lost a key, None became a tuple).
	Pytree Kind = "pytree_change"
	// PythonScalar: a Python number argument that a tracer specialised on its value changed.
	PythonScalar Kind = "python_scalar"
	// PythonValue: a Python value JAX read at trace time changed (a static argument or a
	// number the function closes over).
	PythonValue Kind = "python_value"
	// WeakType: an argument of the same shape and dtype changed between weakly typed (a Python
	// scalar) and strongly typed (a NumPy or JAX scalar): a new cache key, an identical graph.
	WeakType Kind = "weak_type"
	// ModuleMode: a module's training flag changed (train() / eval()): torch.compile guards on
	// it and compiles one graph per mode.
	ModuleMode Kind = "module_mode"
	// GlobalState: global state a tracer guards on changed (torch's grad mode, inference mode,
	// autocast, default dtype).
	GlobalState Kind = "global_state"
)

// Dumped lists the kinds two dumps compared show, in rank order.
var Dumped = []Kind{Dtype, Sharding, BatchSize, InputShape, Constant, ModuleConfig, Layout, GraphStructure, Identical}

// Worded lists the kinds only a framework's words show.
var Worded = []Kind{FunctionRebuilt, StaticArgument, Pytree, PythonScalar, PythonValue, WeakType, ModuleMode, GlobalState}

// Fact is what a stack's own explanation of one compilation says changed, read by the stack's
// unit from its own words: the construct's kind, the argument or input path it names, what
// changed in the verdict's words, the stack's words that show it, and its remedy for that
// argument. Nothing outside the unit reads the stack's wording.
type Fact struct {
	Kind Kind
	// Arg is the argument, key or input path the stack names ("beta", "batch['weight']"); ""
	// when it names none.
	Arg string
	// Change is what changed, old → new; Said the stack's own words that show it.
	Change, Said string
	// Advice is the stack's remedy for this argument; "" for its advice by kind.
	Advice string
	// Old and New are, for a fact of an argument's type (a shape, a dtype), the types before
	// and now as the compiler prints them (f32[32,8]); Kind is then the kind two dumps would
	// show (batch_size, input_shape, dtype), or "" when the types are not arrays. For a
	// module's mode (ModuleMode, Arg the module) they are the mode it had compiled in and the
	// one it runs in now ("train()", "eval()").
	Old, New string
	// Dim is, for a fact of one dimension's size (dynamo's "size mismatch at index 1"), the
	// dimension's index, with Old and New the sizes before and now; "" for other facts.
	Dim string
	// First says the stack traced the function for the first time: nothing compiled before
	// counts (JAX's "never seen function").
	First bool
	// Object is the stack's own identity of the function object it traced ("140707654246752",
	// JAX's id), "" when it names none: the same object traced again as never seen is the
	// same function whose caches went, not one made anew.
	Object string
	// Dynamic says, for a fact of one dimension's size, that the compilation made that
	// dimension dynamic (dynamo's automatic dynamic shapes): its graph serves every later size,
	// and the size's change costs this one compilation.
	Dynamic bool
	// Metadata is the input path whose pytree metadata (static to the compiled function: a flax
	// nnx GraphDef, a dataclass's static fields) differs; Attributes the static attributes in it
	// whose values differ, in the order the stack printed them.
	Metadata   string
	Attributes []Attribute
	// Traced and Calls are, for a stack's warning that a function traced again on many of its
	// recent calls (TF's retracing warning), how many of the last how many calls traced it; Arg
	// is then the function as the stack names it. 0 for other facts.
	Traced, Calls int
	// Trigger is what made the stack cut and compile the graph when it did, as its own analysis
	// of the compilation says (PyTorch/XLA's Compilation Cause): the call that ran it, not what
	// changed in it. Change is then that call in the verdict's words, Said the stack's. "" for
	// other facts.
	Trigger Trigger
}

// Trigger is the call that made a stack compile a graph when it did, as the stack's analysis of
// the compilation names it.
type Trigger string

// The triggers a stack's analysis names (PyTorch/XLA's eight causes).
const (
	// TriggerSync: the program's own sync ran the graph pending (the end of its step).
	TriggerSync Trigger = "sync"
	// TriggerLoader: a data loader's sync at the end of each step ran it.
	TriggerLoader Trigger = "loader_sync"
	// TriggerProfiler: leaving a profiler's step region ran it.
	TriggerProfiler Trigger = "profiler_step"
	// TriggerHostRead: the program read a tensor's value on the host (.item(), a print, a Python
	// branch on a tensor) before its step ended: the graph pending there ran first.
	TriggerHostRead Trigger = "host_read"
	// TriggerCompiled: a compiled function ran (its graph); TriggerPending: the ops pending before
	// it were run ahead of it.
	TriggerCompiled Trigger = "compiled_function"
	TriggerPending  Trigger = "pending_before_function"
	// TriggerTracerInputs: the inputs of a function a tracer compiles were still pending;
	// TriggerTracer: the tracer lowered its graph; TriggerTracerRun: it ran a compiled program.
	TriggerTracerInputs Trigger = "tracer_inputs"
	TriggerTracer       Trigger = "tracer_graph"
	TriggerTracerRun    Trigger = "tracer_run"
)

// StepEnds says whether a trigger ends the program's step (a sync of its own, its loader's or
// its profiler's).
func (t Trigger) StepEnds() bool {
	return t == TriggerSync || t == TriggerLoader || t == TriggerProfiler
}

// Attribute is a static attribute of a pytree's metadata that took a new value.
type Attribute struct{ Name, Old, New string }

// Constructs are the kinds of fact that name a construct of the user's program a comparison of
// the graphs shows only the effect of (or nothing): a static argument, a pytree, a Python
// scalar a tracer specialised on, a weak type.
var Constructs = []Kind{StaticArgument, Pytree, PythonScalar, WeakType}

// TypeKind is the kind of change between two array types as XLA prints them (f32[32,8] →
// f32[24,8]): dtype when the element types differ, batch_size when only the leading dimension
// did, input_shape when others did; "" when either is no array type or they are equal.
func TypeKind(old, new string) Kind {
	oe, od, ok1 := arrayType(old)
	ne, nd, ok2 := arrayType(new)
	switch {
	case !ok1 || !ok2 || old == new:
		return ""
	case oe != ne:
		return Dtype
	}
	if len(od) == len(nd) && len(od) > 0 && od[0] != nd[0] && equalDims(od[1:], nd[1:]) {
		return BatchSize
	}
	return InputShape
}

// arrayType splits an array type (f32[32,8], with or without a layout or attributes after it)
// into its element type and its dimensions.
func arrayType(s string) (elem string, dims []string, ok bool) {
	i := 0
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z') {
		i++
	}
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i >= len(s) || s[i] != '[' {
		return "", nil, false
	}
	j := i + 1
	for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ',') {
		j++
	}
	if j >= len(s) || s[j] != ']' {
		return "", nil, false
	}
	if j > i+1 {
		dims = splitComma(s[i+1 : j])
	}
	return s[:i], dims, true
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for k := 0; k <= len(s); k++ {
		if k == len(s) || s[k] == ',' {
			out = append(out, s[start:k])
			start = k + 1
		}
	}
	return out
}

func equalDims(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
