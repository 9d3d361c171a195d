// Package frameworks lists the XLA stacks recomp knows, each a unit of its own (jax, tf,
// torchxla, ipu: see package framework for what a unit declares), and answers the questions
// the rest of recomp asks of them all: the grammar logscan reads logs with, how a module name
// becomes a family and a function, which programs are eager one-op programs, what `recomp run`
// sets for a stack, where its caches live. Beside the stacks are the front ends (keras): a
// library the program calls whose remedies replace a stack's for what compiled under its calls.
//
// Adding a stack is one unit under frameworks/ added to All, one generator under
// testdata/runs/gen and one line in its matrix.txt.
package frameworks

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/recomp/recomp/frameworks/cause"
	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/frameworks/internal/python"
	"github.com/recomp/recomp/frameworks/ipu"
	"github.com/recomp/recomp/frameworks/jax"
	"github.com/recomp/recomp/frameworks/keras"
	"github.com/recomp/recomp/frameworks/neuron"
	"github.com/recomp/recomp/frameworks/tf"
	"github.com/recomp/recomp/frameworks/torch"
	"github.com/recomp/recomp/frameworks/torchxla"
	"github.com/recomp/recomp/frameworks/wrappers"
	"github.com/recomp/recomp/frameworks/xla"
	"github.com/recomp/recomp/hlo"
	"github.com/recomp/recomp/logscan"
)

// Framework is one stack's unit.
type Framework = framework.Framework

// all are the stacks, in the order their rules are tried and their settings listed.
var all = []*Framework{jax.Framework, tf.Framework, torch.Framework, torchxla.Framework, ipu.Framework, neuron.Framework}

// compilers are the units of what is printed about a stack's compilations by something other
// than the stack: the compiler under several stacks (XLA's slow-compile alarm), the libraries
// that drive a stack (serving engines' precompile loops, training wrappers). Their messages
// are read in every log, before the stacks' (a line in XLA's words is XLA's, whichever stack
// drives it); they are no stack a user picks.
var compilers = []*Framework{xla.Framework, wrappers.Framework}

// stacksThenCompilers is all, then compilers: what ForProducer and Program search, built once
// (they are asked for each compilation).
var stacksThenCompilers = slices.Concat(all, compilers)

// frontEnds are the libraries between programs and stacks whose calls the probe records.
var frontEnds = []*framework.FrontEnd{keras.FrontEnd}

// FrontEnd returns the front end of a name (a probe record's framework), nil when none.
func FrontEnd(name string) *framework.FrontEnd {
	for _, f := range frontEnds {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// StepRole names the front end's step a program is (Keras's "test step (evaluate)"): from what its
// graph does (step, Role) and the calls of front end via it ran under (methods). It returns the
// front end and the role, nil and "" when none tells.
func StepRole(via, step string, methods []string) (*framework.FrontEnd, string) {
	for _, f := range frontEnds {
		if f.StepRole == nil || via != "" && f.Name != via {
			continue
		}
		if r := f.StepRole(step, methods); r != "" {
			return f, r
		}
	}
	return nil, ""
}

// Stepped says whether a program (its family, and its lambda's site: ledger.Unit.Lambda) may be a
// front end's step by its name, and which where the name says (framework.FrontEnd.Stepped).
func Stepped(family, lambda string) (*framework.FrontEnd, string, bool) {
	for _, f := range frontEnds {
		if f.Stepped != nil {
			if step, ok := f.Stepped(family, lambda); ok {
				return f, step, true
			}
		}
	}
	return nil, "", false
}

// LambdaProgram is the program of an anonymous function of module family family defined at
// site (LambdaSite's "FILE:LINE"): two lambdas of one module name are two programs. The ledger
// names its programs so, and the pytest plugin its probe records.
func LambdaProgram(family, site string) string {
	return family + " [" + site + "]"
}

// LambdaSite is where the lambda a compilation traced is defined ("trainer.py:270"), as its
// stack's explanation (why) says: one module name (jit__lambda) covers every lambda, and this
// tells them apart. "" when the function has a name or the stack does not say.
func LambdaSite(p logscan.Producer, why string) string {
	fw := ForProducer(p)
	if fw == nil || fw.Anonymous == nil || why == "" {
		return ""
	}
	return fw.Anonymous(why)
}

// FrontStep names the front end's step a compilation is, from what its stack's explanation says
// (why) of the function it traced and the file that defines it (Keras on JAX: JAX's "for
// train_step defined at …/keras/src/backend/jax/trainer.py:123"); the module names the function
// when the explanation does not. nil and "" when no front end defines it.
func FrontStep(p logscan.Producer, module, why string) (*framework.FrontEnd, string) {
	fw := ForProducer(p)
	if fw == nil || fw.Defined == nil || why == "" {
		return nil, ""
	}
	fn, file := fw.Defined(why)
	if file == "" {
		return nil, ""
	}
	if fn == "" {
		fn = function(trimCounter(module))
	}
	for _, f := range frontEnds {
		if f.Step != nil {
			if s := f.Step(file, fn); s != "" {
				return f, s
			}
		}
	}
	return nil, ""
}

// All returns the stacks recomp knows, in order.
func All() []*Framework { return all }

// Names returns their names, in order.
func Names() []string {
	out := make([]string, len(all))
	for i, f := range all {
		out[i] = f.Name
	}
	return out
}

// ByName returns the stack of a name, nil when there is none.
func ByName(name string) *Framework {
	for _, f := range all {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// ForProducer returns the stack whose log lines a producer prints, nil when none.
func ForProducer(p logscan.Producer) *Framework {
	for _, f := range stacksThenCompilers {
		for _, q := range f.Producers {
			if q == p {
				return f
			}
		}
	}
	return nil
}

var (
	grammarOnce sync.Once
	grammar     *logscan.Grammar
)

// Grammar is the grammar of every stack's log, built once.
func Grammar() *logscan.Grammar {
	grammarOnce.Do(func() {
		fs := make([]*logscan.Framework, 0, len(all)+len(compilers))
		for _, f := range slices.Concat(compilers, all) {
			l := *f.Log // the unit's rules with its vocabulary
			l.Vocabulary = f.Vocabulary
			fs = append(fs, &l)
		}
		for _, f := range frontEnds {
			if f.Log != nil { // a front end's own output (Keras's progress lines), after the stacks'
				fs = append(fs, f.Log)
			}
		}
		g, err := logscan.NewGrammar(fs...)
		if err != nil {
			panic("frameworks: " + err.Error()) // the units are wrong: a bug, caught by any test
		}
		grammar = g
	})
	return grammar
}

var (
	traceGrammarOnce sync.Once
	traceGrammar     *logscan.Grammar
)

// TraceGrammar is the grammar of the stacks' trace files (Framework.TraceFiles), built once:
// each stack's trace rules alone (Framework.Trace), none of the logs' rules and no vocabulary,
// so that a trace's long records are read by the one unit that writes them.
func TraceGrammar() *logscan.Grammar {
	traceGrammarOnce.Do(func() {
		var fs []*logscan.Framework
		for _, f := range all {
			if f.Trace != nil {
				fs = append(fs, f.Trace)
			}
		}
		g, err := logscan.NewGrammar(fs...)
		if err != nil {
			panic("frameworks: " + err.Error())
		}
		traceGrammar = g
	})
	return traceGrammar
}

// Traced says whether the producer's compilations are recorded in a stack's trace files too
// (Framework.Trace): a log's record of one and the trace's are one compilation.
func Traced(p logscan.Producer) bool {
	for _, f := range all {
		if f.Trace != nil && slices.Contains(f.Producers, p) {
			return true
		}
	}
	return false
}

// Family returns the part of a module name that survives between compilations of the same
// graph: per-process counters are stripped. XLA appends ".N" uniquifiers (cluster_35__…_.56,
// jit_f.3, SyncTensorsGraph.38) for every stack, and a stack may number what it traces (TF's
// a_inference_train_function_18311__…); both change when the same graph is traced again.
func Family(name string) string {
	f := name[:counterStart(name)]
	for _, fw := range all {
		if fw.Identity.Family != nil {
			f = fw.Identity.Family(f)
		}
	}
	if f == "" {
		return name
	}
	return f
}

// FunctionKey names the function a family was compiled from, so that the names a stack gives
// one function in its logs and its dumps meet; other families are their own key.
func FunctionKey(family string) string {
	for _, fw := range all {
		if fw.Identity.FunctionKey != nil {
			if k, ok := fw.Identity.FunctionKey(family); ok {
				return k
			}
		}
	}
	return family
}

// SameFunction reports whether two names a stack gives one function agree: JAX names the
// function in its explanations (train_step), its module jit_train_step, and JAX 0.4 logs the
// bare name in its compile request; TF's __inference_train_step_42.
func SameFunction(a, b string) bool {
	if a == b {
		return true
	}
	return a != "" && b != "" && function(trimCounter(a)) == function(trimCounter(b))
}

// FunctionOf is the function a name is of, as SameFunction compares them: two non-empty names of
// the same FunctionOf are of the same function (a key to index names by).
func FunctionOf(name string) string {
	if name == "" {
		return ""
	}
	return function(trimCounter(name))
}

// trimCounter drops XLA's ".N" uniquifiers: XLA's own messages name the module (jit_step.12)
// that a front end's name for it (jit(step)) does not number.
func trimCounter(name string) string {
	if f := name[:counterStart(name)]; f != "" {
		return f
	}
	return name
}

// counterStart is where name's trailing run of ".N" counters begins (len(name) when it has
// none): what `(\.\d+)+$` matches (framework.CounterStart).
func counterStart(name string) int { return framework.CounterStart(name) }

func function(name string) string {
	for _, fw := range all {
		if fw.Identity.Function != nil {
			if fn, ok := fw.Identity.Function(name); ok {
				name = fn
				break
			}
		}
	}
	return sanitizeName(name)
}

// sanitizeName maps a Python name to the name XLA's front ends give its module: every character
// other than a letter, digit, '_', '.' or '-' becomes '_', and trailing '_' are dropped.
func sanitizeName(name string) string {
	i := 0
	for i < len(name) && nameByte(name[i]) {
		i++
	}
	if i == len(name) {
		return strings.TrimRight(name, "_") // nothing to replace: no copy (the ledger asks for each request)
	}
	b := []byte(name)
	for i, c := range b {
		if !nameByte(c) {
			b[i] = '_'
		}
	}
	return strings.TrimRight(string(b), "_")
}

// nameByte says whether sanitizeName keeps a byte.
func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-' || c >= 0x80
}

// Eager reports whether a compilation a producer logged is of a one-op program its stack
// compiles for an eager operation (JAX's jit_convert_element_type): many programs share its
// name, and compiling one again is no recompilation.
func Eager(p logscan.Producer, family, signature string) bool {
	fw := ForProducer(p)
	return fw != nil && fw.Identity.Eager != nil && fw.Identity.Eager(family, signature)
}

// Program is what a compilation is counted against when that is not its family (ok false):
// programs that share a family without being one program.
func Program(family, module, signature string) (string, bool) {
	for _, fw := range stacksThenCompilers {
		if fw.Identity.Program != nil {
			if p, ok := fw.Identity.Program(family, module, signature); ok {
				return p, true
			}
		}
	}
	return "", false
}

// ByTrace says whether a program a producer logged is named by the function trace it was
// compiled from, with no signature (framework.Identity.ByTrace).
func ByTrace(p logscan.Producer, family string) bool {
	fw := ForProducer(p)
	return fw != nil && fw.Identity.ByTrace != nil && fw.Identity.ByTrace(family)
}

// BySignature says whether the stack of a producer keys its compilations by the argument
// signature its log gives (framework.Identity.BySignature).
func BySignature(p logscan.Producer) bool {
	fw := ForProducer(p)
	return fw != nil && fw.Identity.BySignature
}

// NamedBySignature is BySignature for the stack of a name.
func NamedBySignature(name string) bool {
	fw := ByName(name)
	return fw != nil && fw.Identity.BySignature
}

// Group names the group of modules a stack forms anew when it traces a function again (TF
// auto-clustering's clusters), "" for other modules.
func Group(module string) string {
	for _, fw := range all {
		if fw.Identity.Group != nil {
			if g := fw.Identity.Group(module); g != "" {
				return g
			}
		}
	}
	return ""
}

// DumpProgram is the program a dumped module belongs to when no log links it to a compilation:
// its family, a stack's own program key, or "" for one left out (an eager one-op program). A
// module whose graph says its role among the programs of its family (Role) belongs to
// "FAMILY [role]".
func DumpProgram(module, role string) string {
	fam := Family(module)
	if role != "" {
		return WithRole(fam, role)
	}
	for _, fw := range all {
		if fw.Identity.DumpProgram != nil {
			if p, ok := fw.Identity.DumpProgram(module, fam); ok {
				return p
			}
		}
	}
	return fam
}

// WithRole names a program by its role too: "F [train step]", and "F [train step, num_inputs=10]"
// for a program named "F [num_inputs=10]".
//
// Only a stack that reads roles from the graphs of one family (TF's Keras steps) names programs
// apart by them; where each step is a function of its own (Keras on JAX: jit_train_step) its name
// says it, and stays.
func WithRole(program, role string) string {
	role, _, _ = strings.Cut(role, " (") // the step, not the loop that ran it ("test step (evaluate)")
	if role == "" {
		return program
	}
	fam, _, _ := strings.Cut(program, " [")
	if fw := KeyStack(fam); fw != nil && fw.Identity.Role == nil && (function(fam) != "_lambda" || !strings.HasSuffix(role, " step")) {
		return program // a step's own function (jit_train_step) names it; a front end's lambda (jit__lambda) does not
	}
	if p, ok := strings.CutSuffix(program, "]"); ok {
		if i := strings.LastIndex(p, " ["); i >= 0 {
			return p[:i] + " [" + role + ", " + p[i+2:] + "]"
		}
	}
	return program + " [" + role + "]"
}

// Inference says whether a dumped module computes no gradient: some of its ops carry a stack's
// own metadata (Identity.Gradient's ours) and none is part of a backward pass. A module whose
// metadata no stack tells (JAX's, none) says nothing (false).
func Inference(m *hlo.Module) bool {
	if m == nil {
		return false
	}
	ours := false
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			md := in.Metadata()
			if md.OpName == "" && md.OpType == "" {
				continue
			}
			for _, fw := range all {
				if fw.Identity.Gradient == nil {
					continue
				}
				grad, own := fw.Identity.Gradient(md)
				if grad {
					return false
				}
				ours = ours || own
			}
		}
	}
	return ours
}

// Role says what a dumped module does among the programs of its family, from its graph, or which
// front end's step it is from the source files it lists ("" when neither tells).
func Role(family string, m *hlo.Module) string {
	for _, fw := range all {
		if fw.Identity.Role != nil {
			if r := fw.Identity.Role(family, m); r != "" {
				return r
			}
		}
	}
	// A front end's step: the function the module compiles, defined in a file of the front end's
	// the module's source files name (Keras on JAX: train_step of its JAX trainer), or the
	// front end's functions its stack frames name (a step it jits as a lambda).
	if m == nil {
		return ""
	}
	fn := function(family)
	for _, f := range frontEnds {
		step := ""
		for _, file := range m.FileNames {
			if f.Step != nil && step == "" {
				step = f.Step(file, fn)
			}
		}
		// the stack frames' functions name the step a lambda is, and the loop that ran it
		// ("test step (validation in fit)")
		if f.Functions != nil && len(m.FunctionNames) > 0 {
			if s := f.Functions(m.FunctionNames); s != "" && (step == "" || strings.HasPrefix(s, step)) {
				step = s
			}
		}
		if step != "" {
			return step
		}
	}
	return ""
}

// FunctionID is the identity a compiled program has in both the log and the dump (see
// framework.Identity.FunctionID), or its function key where its stack has none.
func FunctionID(module string) string {
	name := module[:counterStart(module)]
	for _, fw := range all {
		if fw.Identity.FunctionID != nil {
			if id, ok := fw.Identity.FunctionID(name); ok {
				return id
			}
		}
	}
	return FunctionKey(Family(module))
}

// KeyStack is the stack whose unit names a family's function key (nil when none does).
func KeyStack(family string) *Framework {
	for _, fw := range all {
		if fw.Identity.FunctionKey != nil {
			if _, ok := fw.Identity.FunctionKey(family); ok {
				return fw
			}
		}
	}
	return nil
}

// IsUserFile says whether a Python source file is the program's own, not a library's (installed
// in site-packages, or known by its package path in a source checkout: …/torch_xla/core/…) or
// the standard library's.
func IsUserFile(file string) bool { return python.IsUserFrame(file) }

// EvidenceAdvice says what makes each stack log its compilations.
func EvidenceAdvice() string {
	var parts []string
	for _, fw := range all {
		if fw.Advice.Evidence != "" {
			parts = append(parts, fw.Advice.Evidence)
		}
	}
	return "turn on the compile logging of the framework: " + strings.Join(parts, "; ")
}

// Unfinished is what to say of a compilation that had not finished at the end of the log,
// begun by a message of producer p whose signal is first (ok false: nothing). A compiler's unit
// (XLA) speaks for the messages its signals name, whichever stack's producer printed them.
func Unfinished(p logscan.Producer, first logscan.Signal) (message, advice string, ok bool) {
	for _, fw := range compilers {
		if fw.Unfinished != nil && strings.HasPrefix(string(first), fw.Name+":") {
			return fw.Unfinished(p)
		}
	}
	if fw := ForProducer(p); fw != nil && fw.Unfinished != nil && !slices.Contains(fw.EndNotLogged, first) {
		return fw.Unfinished(p)
	}
	return "", "", false
}

// RecompiledAdvice says how to find out what made a program a producer logged compile again,
// when the log does not say.
func RecompiledAdvice(p logscan.Producer) string {
	if fw := ForProducer(p); fw != nil && fw.Advice.Recompiled != "" {
		return fw.Advice.Recompiled
	}
	return ByName(ipu.Name).Advice.Recompiled // a compiler that logs hashes: Graphcore's
}

// Selected returns the stacks whose settings `recomp run --framework name` switches on: all of
// them for "auto", else the one named and those it needs too, in order.
func Selected(name string) []*Framework {
	if name == "auto" || name == "" {
		return all
	}
	want := map[string]bool{name: true}
	if fw := ByName(name); fw != nil {
		for _, a := range fw.Also {
			want[a] = true
		}
	}
	var out []*Framework
	for _, fw := range all {
		if want[fw.Name] {
			out = append(out, fw)
		}
	}
	return out
}

// CacheFolder is a cache folder an environment variable names, or a stack's default one
// (Stack names that stack: the folder is the run's only when the run used it).
type CacheFolder struct {
	Dir, From string
	Stack     string
}

// DefaultCacheFolders are the folders the stacks' caches use when no variable of env names one
// (framework.Framework.DefaultCacheFolder), each with its stack.
func DefaultCacheFolders(env []string) []CacheFolder {
	var out []CacheFolder
	for _, fw := range all {
		if fw.DefaultCacheFolder == nil {
			continue
		}
		if d, from := fw.DefaultCacheFolder(env); d != "" {
			out = append(out, CacheFolder{Dir: d, From: from, Stack: fw.Name})
		}
	}
	return out
}

// StackPackages are the Python distributions whose version says a run used the stack name.
func StackPackages(name string) []string {
	for _, fw := range all {
		if fw.Name == name {
			return fw.Packages
		}
	}
	return nil
}

// CacheFolders finds the executable and persistent-cache folders the stacks (and the serving
// engines over them) will use, from an environment (KEY=VALUE), in its order.
func CacheFolders(env []string) []CacheFolder {
	var out []CacheFolder
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		for _, fw := range stacksThenCompilers {
			if fw.CacheFolders == nil {
				continue
			}
			for _, d := range fw.CacheFolders(k, v) {
				out = append(out, CacheFolder{Dir: d, From: k})
			}
		}
	}
	return out
}

// TraceFile says whether a file name is one of a stack's trace files (Framework.TraceFiles): a
// folder of them is read as its files.
func TraceFile(name string) bool {
	for _, fw := range all {
		if fw.TraceFiles != nil && fw.TraceFiles.MatchString(name) {
			return true
		}
	}
	return false
}

// Packages are the Python distributions whose versions a run's manifest records, in order.
func Packages() []string {
	var out []string
	for _, fw := range all {
		out = append(out, fw.Packages...)
	}
	return out
}

// Loggers are the Python loggers the stacks log their compilations with, sorted: recomp's probe
// writes their records where recomp reads them whatever the program does with its own output.
func Loggers() []string {
	var out []string
	for _, fw := range all {
		if fw.Log != nil {
			out = append(out, slices.Collect(maps.Keys(fw.Log.Loggers))...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// CompileFlags are the environment variables that carry compile options, XLA's first.
func CompileFlags() []string {
	out := []string{"XLA_FLAGS"}
	for _, fw := range all {
		out = append(out, fw.CompileFlags...)
	}
	return out
}

// CacheAdvice says how to enable the executable caches of the stacks that have one.
func CacheAdvice() string {
	var parts []string
	for i := len(all) - 1; i >= 0; i-- { // Graphcore's, whose users met the cache first, leads
		if c := all[i].Advice.Cache; c != "" {
			parts = append(parts, c)
		}
	}
	return strings.Join(parts, "; ")
}

// SelectedNames names the stacks Selected returns.
func SelectedNames(name string) []string {
	var out []string
	for _, f := range Selected(name) {
		out = append(out, f.Name)
	}
	return out
}

// Dump is how the compiler under every stack is told to dump the HLO of its compilations
// (XLA's XLA_FLAGS=--xla_dump_to=DIR).
func Dump() *framework.Dump {
	for _, fw := range compilers {
		if fw.Dump != nil {
			return fw.Dump
		}
	}
	panic("frameworks: no compiler says how to dump") // the units are wrong: a bug, caught by any test
}

// DumpAdvice is how advice names the setting that dumps the HLO into DIR.
func DumpAdvice() string { return Dump().Setting() }

// SignaturesAdvice says what makes each stack's log name the argument signatures of what it
// compiles ("" when none can).
func SignaturesAdvice() string {
	return joinAdvice(func(a framework.Advice) string { return a.Signatures }, "; ")
}

// ExecutionsAdvice says what makes each stack's log show each graph's executions.
func ExecutionsAdvice() string {
	return joinAdvice(func(a framework.Advice) string { return a.Executions }, "; ")
}

// NoCompileAdvice says what to check when a program run with every stack's logging on logged
// no compilation: that it runs something a stack compiles, and that nothing silences the
// stack's logging.
func NoCompileAdvice() string {
	var runs, silences []string
	for _, fw := range all {
		if fw.Advice.Compiles != "" {
			runs = append(runs, fw.Advice.Compiles)
		}
		if fw.Advice.Silences != "" {
			silences = append(silences, fw.Advice.Silences)
		}
	}
	what := strings.Join(runs, ", ")
	if i := strings.LastIndex(what, ", "); i >= 0 {
		what = what[:i] + " or " + what[i+2:]
	}
	return "check that the program runs a " + what + ", and that it does not send the framework's logging to a file or silence it " +
		"(" + strings.Join(append([]string{"logging.disable", "absl's flags"}, silences...), ", ") + ")"
}

func joinAdvice(field func(framework.Advice) string, sep string) string {
	var parts []string
	for _, fw := range all {
		if s := field(fw.Advice); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, sep)
}

// CacheEntry says what a file of an executable cache folder is: the kind of a stack's entry
// ("" when it is no stack's), the name a log gives it, and whether it is a lock beside the
// entries.
func CacheEntry(name string) (kind, key string, lock bool) {
	for i := len(all) - 1; i >= 0; i-- {
		for _, e := range all[i].CacheEntries {
			if e.Names.MatchString(name) {
				key = name
				if e.Key != nil {
					key = e.Key(name)
				}
				return e.Kind, key, e.Lock
			}
		}
	}
	return "", name, false
}

// CacheKinds are the kinds of the stacks' cache entries: the executables first (Graphcore's,
// whose users met the cache first, lead), then the locks.
func CacheKinds() []string {
	var out, locks []string
	for i := len(all) - 1; i >= 0; i-- {
		for _, e := range all[i].CacheEntries {
			if e.Lock {
				locks = append(locks, e.Kind)
			} else {
				out = append(out, e.Kind)
			}
		}
	}
	for _, t := range CacheTrees() {
		out = append(out, t.Kind)
	}
	return append(out, locks...)
}

// KeyedCache is the persistent cache whose entries are named by the cache keys a stack logs
// (JAX's, the first), nil when no stack has one.
func KeyedCache() framework.KeyedCache {
	for _, fw := range all {
		if fw.KeyedCache != nil {
			return fw.KeyedCache
		}
	}
	return nil
}

// KeyedCacheOf is the keyed persistent cache of the stack whose producer p is (PyTorch/XLA's
// for torch_xla's records), else KeyedCache's.
func KeyedCacheOf(p logscan.Producer) framework.KeyedCache {
	for _, fw := range all {
		if fw.KeyedCache != nil && slices.Contains(fw.Producers, p) {
			return fw.KeyedCache
		}
	}
	return KeyedCache()
}

// CacheGraph reads, from the head of a cache file (read only when its kind can tell), the
// program it holds ("" when its kind does not say).
func CacheGraph(name string, head func() []byte) string {
	for i := len(all) - 1; i >= 0; i-- {
		for _, e := range all[i].CacheEntries {
			if e.Names.MatchString(name) {
				if e.Graph == nil {
					return ""
				}
				return e.Graph(head())
			}
		}
	}
	return ""
}

// CacheTrees are the caches the stacks (and the serving engines over them) keep as folders of
// entries, in the units' order.
func CacheTrees() []*framework.CacheTree {
	var out []*framework.CacheTree
	for _, fw := range stacksThenCompilers {
		out = append(out, fw.CacheTrees...)
	}
	return out
}

// ProbeHook is a unit's part of recomp run's probe, with the unit's name: the framework its
// records give.
type ProbeHook struct {
	Name string
	*framework.Probe
	// Producers are the stack's producers: whose lines its records are about (none for a
	// front end's).
	Producers []logscan.Producer
}

// Probes are the units' parts of the probe: the stacks', in order, then the front ends'.
func Probes() []ProbeHook {
	var out []ProbeHook
	for _, f := range all {
		if f.Probe != nil {
			out = append(out, ProbeHook{f.Name, f.Probe, f.Producers})
		}
	}
	for _, f := range frontEnds {
		if f.Probe != nil {
			out = append(out, ProbeHook{f.Name, f.Probe, nil})
		}
	}
	return out
}

// HasProbe says whether name is a unit's name in the probe's records (Probes: a stack's or a
// front end's, "tf", "torch-xla"), not the interpreter's ("python") nor a test runner's ("pytest").
func HasProbe(name string) bool {
	for _, p := range Probes() {
		if p.Name == name {
			return true
		}
	}
	return false
}

// ProbeProgram is the program, a module family as the verdict names it, that a probe record
// of framework naming name is a compilation of: the unit's ModuleName, then Family; "" when
// the record names none.
func ProbeProgram(framework, name string) string {
	if name == "" {
		return ""
	}
	for _, p := range Probes() {
		if p.Name == framework && p.ModuleName != nil {
			name = p.ModuleName(name)
			break
		}
	}
	return Family(name)
}

// ProbeStages says whether the probe's records of a framework are compile stages with their
// process and duration (framework.Probe.Stages).
func ProbeStages(name string) bool {
	for _, p := range Probes() {
		if p.Name == name {
			return p.Stages
		}
	}
	return false
}

// RewrappedAdvice names how the stacks' programs wrap a function anew in each step.
func RewrappedAdvice() string {
	return joinAdvice(func(a framework.Advice) string { return a.Rewrapped }, ", ")
}

// GrowsAdvice names what grows in a loop and changes a stack's graph.
func GrowsAdvice() string {
	return joinAdvice(func(a framework.Advice) string { return a.Grows }, " or ")
}

// MaterializeAdvice says how each stack makes tensors created on the device inputs before the
// loop.
func MaterializeAdvice() string {
	return joinAdvice(func(a framework.Advice) string { return a.Materialize }, "; ")
}

// MergedAdvice says how to keep ops left pending by code that ran before a step out of the
// step's graph, with each stack's way to do it.
func MergedAdvice() string {
	s := "give the code that ran before the step (an epoch-end metric, an evaluation) a graph of its own, so that the step's graph stays the one compiled before"
	if by := joinAdvice(func(a framework.Advice) string { return a.Merged }, "; "); by != "" {
		s += " (" + by + ")"
	}
	return s
}

// SourceLinesAdvice says, after a colon, what makes each stack's dumps carry source lines where
// they do not by default ("" when no stack has such a setting).
func SourceLinesAdvice() string {
	if by := joinAdvice(func(a framework.Advice) string { return a.SourceLines }, "; "); by != "" {
		return ": " + by
	}
	return ""
}

// StateFirstAdvice says how each stack creates state before the loop.
func StateFirstAdvice() string {
	return joinAdvice(func(a framework.Advice) string { return a.StateFirst }, "; ")
}

// UnusedAdvice names the stacks whose logs show no use of a compiled program.
func UnusedAdvice() string {
	return joinAdvice(func(a framework.Advice) string { return a.Unused }, "; ")
}

// SwitchingAdvice is about executables switched on the device after warm-up.
func SwitchingAdvice() string {
	return joinAdvice(func(a framework.Advice) string { return a.Switching }, "; ")
}

// OncePerProcess is the stack that prints a line once per process however often it compiles
// (framework.Framework.OncePerProcess: TF's), nil when none does.
func OncePerProcess() *Framework {
	for _, fw := range all {
		if fw.OncePerProcess != "" {
			return fw
		}
	}
	return nil
}

// OnceProducers are the producers whose records can be those of the compilations of the stack
// that prints a line once per process (OncePerProcess: TF's device compiler, and on an IPU the
// TF-IPU backend, XLA and Poplar that compile TF's clusters); nil when no stack does.
func OnceProducers() map[logscan.Producer]bool {
	fw := OncePerProcess()
	if fw == nil {
		return nil
	}
	out := map[logscan.Producer]bool{}
	for _, p := range slices.Concat(fw.Producers, fw.CompiledBy) {
		out[p] = true
	}
	return out
}

// StageProducers are the producers whose compile stages the probe's records give with their
// process and duration (framework.Probe.Stages: JAX's), to tell apart the processes of one log.
func StageProducers() map[logscan.Producer]bool {
	out := map[logscan.Producer]bool{}
	for _, fw := range all {
		if fw.Probe != nil && fw.Probe.Stages {
			for _, p := range fw.Producers {
				out[p] = true
			}
		}
	}
	return out
}

// AdviceStack is the stack whose remedies a front end's advice takes (FrontEnd.On), for a
// program of stack fed a dataset of kind data: "" when a front end's dataset of that kind
// batches the data itself on any backend (FrontEnd.AnyStack: tf.data), else stack.
func AdviceStack(stack, data string) string {
	for _, f := range frontEnds {
		if data != "" && data == f.AnyStack {
			return ""
		}
	}
	return stack
}

// Explains reads a stack's explanation of a recompilation for the construct of the user's
// program it names (framework.Framework.Explains), the stacks asked in order; ok false when
// no stack's words name one.
func Explains(why string) (kind cause.Kind, change, said string, ok bool) {
	for _, fw := range all {
		if fw.Explains == nil {
			continue
		}
		if kind, change, said, ok = fw.Explains(why); ok {
			return kind, change, said, true
		}
	}
	return "", "", "", false
}

// lastFacts holds the facts of the last explanation read: a verdict asks about one compilation's
// explanation several times in a row (its cause, its argument's name, a first trace), and a long
// explanation (a flax GraphDef) is read once.
var lastFacts struct {
	sync.Mutex
	why   string
	facts []cause.Fact
}

// Facts are the typed facts the stack's explanation of a compilation (Unit.Why) states, strongest
// first: the unit's own reading (Framework.Facts) where it has one, else what Explains says. The
// slice may be shared between calls: callers do not modify it.
func Facts(why string) []cause.Fact {
	if why == "" {
		return nil
	}
	lastFacts.Lock()
	defer lastFacts.Unlock()
	if why != lastFacts.why {
		lastFacts.why, lastFacts.facts = why, readFacts(why)
	}
	return lastFacts.facts
}

// readFacts is Facts, read anew.
func readFacts(why string) []cause.Fact {
	for _, fw := range all {
		if fw.Facts != nil {
			if fs := fw.Facts(why); len(fs) > 0 {
				return fs
			}
		}
	}
	if kind, change, said, ok := Explains(why); ok {
		return []cause.Fact{{Kind: kind, Change: change, Said: said}}
	}
	return nil
}

// SameObject is now with its fact of a function made anew (cause.FunctionRebuilt) worded as what
// the evidence shows when the stack names the function object and an earlier trace of the
// function in this process named the same one (before): the same object traced again as never
// seen, so its caches went (JAX's jax.clear_caches() makes JAX say "never seen" and "maybe
// re-defined"), unless a function made anew took a freed one's id. nil when that is not so.
func SameObject(before, now []cause.Fact) []cause.Fact {
	i := slices.IndexFunc(now, func(f cause.Fact) bool { return f.Kind == cause.FunctionRebuilt && f.Object != "" && f.Arg != "" })
	if i < 0 || !slices.ContainsFunc(before, func(f cause.Fact) bool { return f.Object == now[i].Object }) {
		return nil
	}
	out := slices.Clone(now)
	out[i].Change = "the same " + out[i].Arg + " traced again as never seen: caches cleared, or a new function with a freed id"
	return out
}

// Against holds the facts of a retrace whose stack names only what the function was called with
// now (TF's parameters of a new trace: New, no Old) against those of its trace before: each
// argument whose value or type differs gets the one before (Old), the kind of change (the
// array types' kind, cause.TypeKind; a Python number's is a constant baked in) and old → new; one
// that did not change is left out. Facts that say what changed already (JAX's) are kept as they
// are. With no trace before, the facts are returned as they are.
func Against(before, now []cause.Fact) []cause.Fact {
	if len(before) == 0 || !slices.ContainsFunc(now, func(f cause.Fact) bool { return f.Arg != "" && f.New != "" && f.Old == "" }) {
		return now
	}
	was := map[string]string{}
	for _, f := range before {
		if f.Arg != "" && f.New != "" {
			was[f.Arg] = f.New
		}
	}
	out := make([]cause.Fact, 0, len(now))
	for _, f := range now {
		old, ok := was[f.Arg]
		switch {
		case f.Arg == "" || f.New == "" || f.Old != "" || !ok:
			out = append(out, f)
			continue
		case old == f.New:
			continue
		}
		f.Old, f.Change = old, f.Arg+": "+old+" → "+f.New
		if k := cause.TypeKind(old, f.New); k != "" || f.Kind != cause.Constant {
			f.Kind = k
		}
		out = append(out, f)
	}
	return out
}

// Framing says whether a line of a stack's explanation only frames it (framework.Framework.Framing),
// by any stack's rule.
func Framing(line string) bool {
	for _, fw := range all {
		if fw.Framing != nil && fw.Framing(line) {
			return true
		}
	}
	return false
}

// ShowSignature is an argument signature producer p logged, as a person reads it
// (framework.Framework.ShowSignature); sig itself when its stack logs it readably.
func ShowSignature(p logscan.Producer, sig string) string {
	if fw := ForProducer(p); fw != nil && fw.ShowSignature != nil {
		return fw.ShowSignature(sig)
	}
	return sig
}

// SignatureArrays are the arrays of a signature producer p logged as its probe records them
// (framework.Framework.SignatureArrays); nil when its stack's probe records none.
func SignatureArrays(p logscan.Producer, sig string) []string {
	if fw := ForProducer(p); fw != nil && fw.SignatureArrays != nil {
		return fw.SignatureArrays(sig)
	}
	return nil
}

// SaidBy names who says the words that show a construct of a kind, when not the stack itself
// (framework.Framework.SaidBy: dynamo's guards); "" otherwise.
func SaidBy(kind cause.Kind) string {
	for _, fw := range all {
		if by := fw.SaidBy[kind]; by != "" {
			return by
		}
	}
	return ""
}

// MadeDynamic are the facts of a compilation that made dimensions dynamic (dynamic: one a line,
// "ARG.size()[DIM]", logscan.Event.Dynamic), each fact of one of those dimensions' sizes marked
// so (cause.Fact.Dynamic) with its stack's remedy (framework.Advice.AutoDynamic; a batch's size
// keeps the remedies of a partial batch, which padding or dropping it avoids); facts itself,
// unchanged, when none is.
func MadeDynamic(p logscan.Producer, facts []cause.Fact, dynamic string) []cause.Fact {
	fw := ForProducer(p)
	if fw == nil || dynamic == "" {
		return facts
	}
	dims := strings.Split(dynamic, "\n")
	var out []cause.Fact
	for i, f := range facts {
		if f.Dynamic || !(f.Dim != "" && slices.Contains(dims, f.Arg+".size()["+f.Dim+"]") ||
			f.Kind == cause.PythonScalar && f.Arg != "" && slices.Contains(dims, f.Arg)) {
			continue
		}
		if out == nil {
			out = slices.Clone(facts) // the facts of a reason are shared (Facts)
		}
		out[i].Dynamic = true
		if f.Dim != "" {
			out[i].Change += ", then dynamic (one graph for every later size)"
		} else {
			out[i].Change += ", then a symbol for every later value"
		}
		if f.Dim != "" && f.Kind != cause.BatchSize {
			out[i].Advice = fw.Advice.AutoDynamic // a partial batch keeps its remedies: drop it, or pad it to the full batch; a number, a tensor's
		}
	}
	if out == nil {
		return facts
	}
	return out
}
