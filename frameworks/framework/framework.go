// Package framework declares what recomp knows of one XLA stack, in one place: how to read its
// log, how it names its programs, what `recomp run` switches on to make it log its
// compilations and what that costs, where its executable caches live, which Python packages
// carry its version, and what to advise its users. Each stack is a unit under frameworks/
// (jax, tf, torchxla, ipu) that fills one Framework; package frameworks lists them.
package framework

import (
	"strconv"
	"strings"
	"time"

	"github.com/recomp/recomp/frameworks/cause"
	"github.com/recomp/recomp/hlo"
	"github.com/recomp/recomp/internal/lazyre"
	"github.com/recomp/recomp/logscan"
)

// Framework is one stack. Fields that do not apply to a stack are left empty; a nil function
// means the stack has nothing to say.
type Framework struct {
	// Name is the stack's name everywhere recomp names it: `recomp run --framework NAME`, the
	// manifest, the reports ("jax", "tf", "torch-xla", "ipu").
	Name string
	// Title is how a person names it ("PyTorch/XLA").
	Title string
	// Producers are the programs whose log lines belong to the stack.
	Producers []logscan.Producer
	// Log is how logscan reads its messages.
	Log *logscan.Framework
	// Vocabulary is the words of the stack's compile records, whatever the release: a line in
	// them that no rule of Log read is reported as a compile record recomp could not read,
	// never as silence (see logscan.Vocabulary). Package frameworks gives it to the grammar
	// with Log.
	Vocabulary logscan.Vocabulary

	// Identity is how the stack names its programs.
	Identity Identity

	// Settings are what `recomp run` sets to make the stack log its compilations.
	Settings []Setting
	// Also names other stacks whose settings this one needs too (TF-IPU logs through TF).
	Also []string
	// CacheFolders finds, in one environment variable, the executable or persistent-cache
	// folders a run of the stack will use.
	CacheFolders func(name, value string) []string
	// DefaultCacheFolder is the folder the stack's cache uses when no variable names one, from
	// the run's environment (Inductor's TMPDIR/torchinductor_<user>), and what makes it the
	// default; "" when the stack has none or a variable names one.
	DefaultCacheFolder func(env []string) (dir, from string)
	// CacheEntries are the kinds of file the stack's cache folders hold.
	CacheEntries []CacheEntry
	// CacheTrees are the stack's caches kept as folders of entries (Neuron's
	// neuronxcc-<version>/MODULE_<hash>/, vLLM's <hash>/rank_<r>_<dp>/<prefix>/).
	CacheTrees []*CacheTree
	// KeyedCache is the stack's persistent cache whose entries are named by the cache keys
	// its log gives (JAX's, PyTorch/XLA's), nil when it has none.
	KeyedCache KeyedCache
	// CompileFlags are the environment variables that carry compile options into the cache key
	// and the compiled program (XLA_FLAGS is every stack's).
	CompileFlags []string
	// Packages are the Python distributions whose versions a run's manifest records.
	Packages []string

	// CompileTimeMetric names the metric in which the stack reports its total compile time
	// (spread over the compilations of a log that gave no durations of its own).
	CompileTimeMetric string
	// CacheHitMetric names the counter of compile requests the stack served from its own
	// in-memory cache without compiling (PyTorch/XLA's CachedCompile): the cache hits of a log
	// whose only evidence is the stack's metrics report.
	CacheHitMetric string
	// ExecuteMetrics name the metrics whose samples are the compiled graphs the stack ran
	// (PyTorch/XLA's ExecuteTime, and XrtExecute before PJRT).
	ExecuteMetrics []string
	// Metrics compares what the stack's metrics report says (the last value of each metric)
	// with the compilations of its producers the log showed.
	Metrics func(metrics map[string]Metric, compiled int) []Note
	// Construct reads a cause the dumps show (kind, change old → new) for the construct of the
	// user's program behind it, where the stack has a rule that explains it (PyTorch/XLA bakes
	// the Python scalars 0 and 1 into the graph): what changed in the user's words and what to
	// do; ok false when it has none.
	Construct func(kind cause.Kind, change string) (what, advice string, ok bool)
	// HostRead says whether the stack's cause for compiling or running a graph is the program
	// reading a tensor's value on the host before its step ended (PyTorch/XLA's "user code
	// trying to access tensor value before torch_xla.sync"): the step is cut there and waits
	// for the device. StepEnd says whether the cause is the end of a step ("user
	// torch_xla.sync"). HostReadMetric names the metric that sums the time of such reads.
	HostRead       func(reason string) bool
	StepEnd        func(reason string) bool
	HostReadMetric string
	// Defined reads, in the stack's own explanation of a compilation (Unit.Why: JAX's tracing-
	// cache miss), the function it traced and the file that defines it; "" when it names none.
	Defined func(why string) (function, file string)
	// Anonymous reads, in the stack's own explanation of a compilation, where the anonymous
	// function it traced (a Python lambda) is defined, as "file.py:LINE" (the file's base name):
	// lambdas share one module name (JAX's jit__lambda) and are told apart by it. "" when the
	// function has a name, or the explanation names none.
	Anonymous func(why string) string
	// Unfinished is what to say of a compilation by producer p that had not finished at the
	// end of the log (ok false: nothing).
	Unfinished func(p logscan.Producer) (message, advice string, ok bool)
	// EndNotLogged are the signals of begin records from releases that logged no end (JAX 0.2's
	// "Compiling F for args"): Unfinished does not speak for them; a log that shows such a
	// record finishing elsewhere still makes the last one open.
	EndNotLogged []logscan.Signal

	// Probe is what the unit adds to recomp run's probe (nil: nothing).
	Probe *Probe

	// Dump is how the compiler is told to write the HLO of its compilations into a folder
	// (a compiler's unit: XLA's); nil for the stacks, which all compile through it.
	Dump *Dump

	// Advice is what recomp tells the stack's users.
	Advice Advice

	// Short is how a sentence names the stack ("TF"), where Title is too long.
	Short string
	// OncePerProcess is the line the stack prints once per process however often it compiles,
	// whose events are logscan.ClusterCompiled (TF's "Compiled cluster using XLA!"); "" when
	// it prints none.
	OncePerProcess string
	// CompiledBy are other stacks' producers whose records can be of this stack's compilations
	// (TF's clusters compiled on an IPU by the TF-IPU backend and Poplar).
	CompiledBy []logscan.Producer
	// Explains reads the stack's own explanation of a recompilation (Unit.Why) for the construct
	// of the user's program it names (JAX: a static argument, a pytree change; dynamo: a Python
	// scalar it specialised on): the cause's kind, what changed and the stack's words that show
	// it; ok false when why names none. SaidBy names who says it, by kind, when not the stack
	// itself ("dynamo").
	Explains func(why string) (kind cause.Kind, change, said string, ok bool)
	// Facts reads the same explanation into the typed facts it states, in the stack's order of
	// strength (a construct first, then a function made anew, then each argument's new type),
	// with the argument each names and the remedy for it; nil when Explains says all the
	// stack can.
	Facts  func(why string) []cause.Fact
	SaidBy map[cause.Kind]string
	// ClosestKey says whether the stack's explanation of a compilation (Unit.Why) is of the
	// closest of the keys it had seen, a comparison that leaves static argument values out
	// (JAX's "all previously seen cache keys differ"); nil when it gives none such.
	ClosestKey func(why string) bool
	// Framing says whether a line of the stack's explanation only frames it (JAX's "for f
	// defined at t.py:3", "all previously seen cache keys differ"): the explanation said on one
	// line leaves it out. Nil when none does.
	Framing func(line string) bool
	// ShowSignature is the stack's logged argument signature as a person reads it (JAX's
	// ShapedArray(float32[8,4]) is float32[8,4]); nil when it logs it readably.
	ShowSignature func(sig string) string
	// SignatureArrays are the arrays a logged signature names, in order, each as the stack's probe
	// records a traced call's arguments (JAX's "float32[8,16]"): what tells apart two processes'
	// requests of one function traced at the same moment. nil when the stack's probe records none.
	SignatureArrays func(sig string) []string
	// MetadataAdvice is what to do about a Python value held in an argument's pytree metadata
	// at path (static to jit: JAX's "input path [0][0]._graphdef"); AttributeAdvice about a
	// module's plain Python attribute name whose new values compiled the step again. nil when
	// the stack has no such static values.
	MetadataAdvice  func(path string) string
	AttributeAdvice func(name string) string
	// Static is how the stack names the Python values its probe records at a trace that are
	// part of the function's cache key (JAX's static arguments, a tf.function's Python
	// arguments) and what to do when one changes; nil when its probe records none.
	Static *Static
	// TraceFiles matches the names of the files of a trace folder the stack writes, read as logs
	// when the folder is given (torch's TORCH_TRACE: dedicated_log_torch_trace_*.log); nil: none.
	TraceFiles *lazyre.Regexp
	// Trace is how recomp reads the stack's trace files (TraceFiles) on their own: only its
	// rules, with no other stack's and no vocabulary (frameworks.TraceGrammar); nil when the
	// stack writes none. Log reads the same records wherever they are (a trace under another
	// name).
	Trace *logscan.Framework
	// TraceVariable is the environment variable that makes the stack write its trace files into
	// a folder (torch's TORCH_TRACE=DIR): recomp run sets it to the run folder's trace folder
	// (runfolder.TraceName), or keeps the user's own and reads that folder; TraceEffect says
	// what the trace costs. "" when the stack writes none.
	TraceVariable, TraceEffect string
}

// Static is a stack's words for a Python value passed to a compiled function that is part of its
// cache key: each new value is a new trace and a new compilation.
type Static struct {
	// Word names one such argument ("static argument"), PerValue what each value costs ("one
	// compilation per value").
	Word, PerValue string
	// Advice is what to do about the argument name that changed; ints when every value it took
	// is a Python int (a loop count).
	Advice func(name string, ints bool) string
	// ValuesAdvice, when set, is what to do given the values the argument took (as the probe
	// recorded them), where they call for another remedy than Advice's (Python lists of varying
	// length: a tensor would still compile once per length); "" defers to Advice.
	ValuesAdvice func(name string, values []string) string
}

// Dump is how a compiler is told to write the HLO of each compilation into a folder: XLA's
// XLA_FLAGS=--xla_dump_to=DIR --xla_dump_hlo_as_text.
type Dump struct {
	// Variable is the environment variable that carries the compiler's flags (XLA_FLAGS).
	Variable string
	// To is the flag that names the folder (--xla_dump_to); AsText the one that makes the
	// dump text (--xla_dump_hlo_as_text).
	To, AsText string
}

// Setting is how advice names the setting that dumps into DIR: XLA_FLAGS=--xla_dump_to=DIR.
func (d *Dump) Setting() string { return d.Variable + "=" + d.To + "=DIR" }

// Probe is what a unit adds to recomp run's probe, a sitecustomize that the command's Python
// loads (runner/probe/sitecustomize.py): a hook run right after the program imports a
// package, whose records (runfolder.ProbeRecord, with the unit's name as their framework) give
// compilations the line of the program's own code.
type Probe struct {
	// Package is the top-level Python package whose import runs the hook ("jax").
	Package string
	// Hook is the hook's Python source: a function named by Function that takes the imported
	// module and writes records with the probe's _write(rec) and _user_frame().
	Hook, Function string
	// Records says what the hook records, for the probe's setting in the manifest ("each JAX
	// compilation").
	Records string
	// Attach is how its records are joined to the compilations of the log; Event the event
	// of the records it joins (AttachInOrder, AttachLastTrace).
	Attach Attach
	Event  string
	// Traces is the event of the records of traces whose static arguments go with the next
	// record of Event in their process (AttachInOrder; "" for none).
	Traces string
	// ModuleName turns the function name a record gives into the module name the log gives
	// (nil: the same).
	ModuleName func(name string) string
	// Stages says the records are compile stages with their process and duration, which tell
	// apart the processes that wrote one log.
	Stages bool
	// Compiles says each record of Event is one compilation the stack made, named (Name, through
	// ModuleName) as the log names its program: the pytest plugin gives each to the test that
	// made it.
	Compiles bool
	// StandIn says that where a log holds no compilation of the stack (its compile logging was
	// off), the records of Event stand for the log's lines. (JAX's compile records include
	// persistent-cache hits, which the probe does not tell apart: with a warm persistent cache
	// and a silent log, a hit counts as compiled.) Not for a stack whose compilations another
	// stack's log can carry (torch.compile's behind PyTorch/XLA): they would count twice.
	StandIn bool
}

// Attach is how a probe's records are joined to the compilations of a log.
type Attach int

// The ways to join a probe's records.
const (
	// AttachInOrder: each record is the next compile request of the unit's producers, of the
	// same function, in the same process when the log tells them apart.
	AttachInOrder Attach = iota + 1
	// AttachLastTrace: a compilation of the unit's producers takes the last record before it
	// (a trace: the stack compiles a function at its first run after each trace), of the same
	// function when both name it.
	AttachLastTrace
	// AttachCallSpan: the compilations between a record METHOD_begin and its METHOD_end, of
	// any stack, were made under the front end's call.
	AttachCallSpan
	// AttachSteps: the records count the process's steps (PyTorch/XLA's torch_xla.sync): a
	// record "sync" at each step that compiled, with the step and the stack's count of
	// compilations after it; "epoch" each time a data loader is iterated again, with the steps
	// ended before; "steps" at exit, with the steps ended, the count, and each compilation's
	// duration. The log's compilations of the unit, in order, take their steps from them.
	AttachSteps
)

// CacheEntry is one kind of file in a stack's executable cache folders.
type CacheEntry struct {
	// Kind names the kind in reports and in the JSON contract ("tf-ipu", "popart", "jax").
	Kind string
	// Names matches the file names of the kind.
	Names *lazyre.Regexp
	// Lock says the file is a lock beside the entries, not an executable: never proposed for
	// removal.
	Lock bool
	// Key is the name a log gives the entry of a file name (nil: the file name itself).
	Key func(name string) string
	// Graph reads the program an entry holds from the first CacheHeadBytes of the file ("" when
	// they do not say; nil: entries of the kind never say).
	Graph func(head []byte) string
}

// CacheHeadBytes is how much of an entry CacheEntry.Graph is given.
const CacheHeadBytes = 4096

// CacheTree is a cache kept as folders of entries: recomp walks it from the cache folder to
// its entries, MaxDepth folders down at most, and never further.
type CacheTree struct {
	// Kind names the kind in reports and in the JSON contract ("neuron", "vllm").
	Kind string
	// Top matches the names of the cache folder's own subfolders that are the tree's
	// (neuronxcc-2.15.128.0+56dc5a86): a folder with none is no such cache.
	Top *lazyre.Regexp
	// MaxDepth is how many folders below the cache folder an entry lies at most.
	MaxDepth int
	// Entry says whether a folder is an entry, from its path below the cache folder (its names,
	// top first) and the names of the files in it, and what it is.
	Entry func(path []string, files []string) (TreeEntry, bool)
	// Factors reads the parts of an entry's key that its files spell out (vLLM's
	// cache_key_factors.json), by part; nil when the entry's path says all (TreeEntry.Parts).
	// read reads one file of the entry, bounded.
	Factors func(read func(name string) ([]byte, error)) ([]Factor, error)
	// Describe reads what an entry is from the file TreeEntry.Read names (Inductor's pickled
	// entry, which holds its key's parts): the program it belongs to and its key's parts; ok
	// false when the file is not what the kind writes (the entry is then corrupt). data is the
	// file's first MaxDescribeBytes, valid during the call only. nil when the path and Factors
	// say all.
	Describe func(data []byte) (program string, parts []Factor, ok bool)
	// Remedy is what to do when a part of the key changed between two caches, by part.
	Remedy map[KeyPart]string
}

// MaxDescribeBytes bounds what CacheTree.Describe is given of an entry's file.
const MaxDescribeBytes = 16 << 20

// TreeEntry is what a cache tree's entry folder is.
type TreeEntry struct {
	// Program names the graph or program the entry holds; Key is its cache key (the folder
	// name, or the hash a log gives it).
	Program, Key string
	// State is "" for a complete entry, else what is wrong: "partial" (its writer did not
	// finish), "locked" (a writer holds it), "failed" (a compilation that failed, kept so
	// that it is not tried again), "corrupt", "foreign" (not what the stack writes there).
	State string
	// Parts are the parts of the key the entry's path spells out (the compiler's version, the
	// graph's hash, the flags' hash).
	Parts []Factor
	// Read names the file of the entry (below its folder) that CacheTree.Describe reads, for an
	// entry that is listed; "" for none.
	Read string
}

// Factor is one part of a cache key with its value: Part says what it is about, Name names it
// as the stack does ("config.model_config.max_model_len", "compiler version").
type Factor struct {
	Part        KeyPart
	Name, Value string
}

// KeyedCache is a persistent cache whose entries are named by the cache key the stack logs
// for each compile request (JAX's persistent compilation cache): what recomp needs to say
// whether a later run got an entry an earlier one wrote, and if not, why.
type KeyedCache interface {
	// EntryFile is the file of a key in a cache folder; ok false when the key (which comes
	// from a log) could name a file outside the folder.
	EntryFile(dir, key string) (path string, ok bool)
	// CompileTime reads the compile time an entry stores: what a hit on it saves.
	CompileTime(path string) (time.Duration, error)
	// ShortKey shortens a key for a report.
	ShortKey(key string) string
	// Part says which of the parts of a key whose hashes the log gives a part name is.
	Part(name string) KeyPart
	// Words are the stack's words about its cache, for the reasons of a miss.
	Words() CacheWords
}

// KeyPart is what a part of a cache key is about.
type KeyPart int

// The parts of a cache key.
const (
	KeyOther    KeyPart = iota
	KeyGraph            // the computation itself
	KeyFlags            // the compiler's flags
	KeyVersions         // the versions of the stack and its backend
	KeyDevice           // the devices and their topology (ranks, the accelerator)
	KeyEnv              // environment variables that reach the compiler
	KeyInputs           // the inputs' metadata the graph was compiled for (shapes, dtypes, strides)
)

// KeyPartOrder is the order in which the parts of a key that differ are named, the first
// deciding: a version, then the devices, the flags or config, the environment, the inputs'
// metadata, and last the graph (a new version or new flags change every graph's key; a new
// graph changes one).
var KeyPartOrder = []KeyPart{KeyVersions, KeyDevice, KeyFlags, KeyEnv, KeyInputs, KeyGraph, KeyOther}

// String names a part of a cache key for a report.
func (p KeyPart) String() string {
	switch p {
	case KeyGraph:
		return "graph"
	case KeyFlags:
		return "flags"
	case KeyVersions:
		return "versions"
	case KeyDevice:
		return "device"
	case KeyEnv:
		return "environment"
	case KeyInputs:
		return "inputs"
	}
	return "other"
}

// CacheWords are a keyed cache's own words for the reasons a run missed an entry.
type CacheWords struct {
	// FlagsPart names the part of the key that hashes the compiler's flags ("XLA flags"), as
	// a miss's changed component.
	FlagsPart string
	// Keys names the stack's keys ("JAX's cache keys"). KeyLog names the log of their parts ("JAX's cache-key log"); KeyLogSetting
	// the setting that makes the stack print it ("" when no setting makes it print the parts).
	Keys, KeyLog, KeyLogSetting string
	// Eviction names what evicts entries ("JAX's LRU eviction with
	// jax_compilation_cache_max_size").
	Eviction string
	// Stored says where the compile time a hit saves came from when an entry stored it ("the
	// compile time JAX stored in the entry, whole seconds").
	Stored string
	// WhyNotWritten says when the stack says why it did not write an entry.
	WhyNotWritten string
	// Unreadable says why an entry found could not be read.
	Unreadable string
	// OutsideGraph lists what else goes into a key.
	OutsideGraph string
	// ReadFailureMetric names the stack's counter of entries found and not read (PyTorch/XLA's
	// PersistentCacheDeserializeFailure): in a run's metrics report, the reason it compiled a
	// graph its cache held. "" when it has none.
	ReadFailureMetric string
	// HitMetric and MissMetric name the stack's counters of entries served and not found
	// (PersistentCacheHit, PersistentCacheMiss): with ReadFailureMetric, what a run whose log
	// names no entry did with the entries of the graphs it ran. "" when it has none.
	HitMetric, MissMetric string
	// HitThenCompile says a hit serves the compiled graph and the stack still compiles what
	// holds it (dynamo compiles the frame around an FX graph Inductor's cache served): the
	// compilation after a hit of the same program is that hit's, one request served.
	HitThenCompile bool
	// PartAdvice is what to do when a part of a key changed, by the part that decided the miss,
	// where the stack's records name the parts with their values (Inductor's remedies).
	PartAdvice map[KeyPart]string
	// Advice is what to do, by the reason of a miss (the JSON contract's miss reasons:
	// key_changed_outside_graph, never_written, evicted, unreadable), where the stack has its
	// own way.
	Advice map[string]string
}

// Metric is a stack's counter (Count) or metric (Count samples, Total time), with the log line
// it was last reported at.
type Metric struct {
	Count int
	Total time.Duration
	File  string
	Line  int
}

// Note is something a stack's unit wants a user to look at; Kind is a finding kind of the
// JSON contract and Severity "error", "warning" or "info".
type Note struct {
	Severity, Kind  string
	File            string
	Line            int
	Message, Advice string
}

// Setting is one environment variable `recomp run` sets for a stack.
type Setting struct {
	Name, Value string
	// Effect says what the setting costs or changes besides logging ("" when nothing).
	Effect string
	// Prints matches the lines the setting makes the stack print (nil: none of its own): recomp
	// run keeps them out of the terminal, in run.log only, unless the user set it. With
	// Continued, the indented lines after such a line belong to it.
	Prints    *lazyre.Regexp
	Continued bool
	// Off, for the setting that makes the stack log each compilation, says whether a value of
	// the user's own (which recomp run keeps) leaves no record of them (nil: the setting is not
	// that one). The stack's compilations are then judged on the probe's records.
	Off func(value string) bool
	// Narrowed says the probe narrows the setting, when recomp set it, to the runs whose answer
	// it serves (JAX's cache-key lines to a run with a persistent cache): the runner names such
	// settings to the probe (runfolder.ProbeOwnVar). Without the probe it applies as set.
	Narrowed bool
	// Native says the stack's native code writes the lines the setting makes it print straight to
	// the process's standard streams, never through Python's logging (absl's info lines,
	// PyTorch/XLA's analysis blocks, Poplar's log): only recomp run, which reads those streams,
	// gets them. A session inside the process (the pytest plugin's, recomp.gather()) cannot read
	// them (pytest takes the streams test by test), so it leaves the setting unset rather than
	// add the lines to the process's own output.
	Native bool
}

// VModuleOff says whether a TF_CPP_VMODULE value (module=level,...) sets none of modules to its
// level or above: their lines are then not printed.
func VModuleOff(value string, modules map[string]int) bool {
	for _, kv := range strings.Split(value, ",") {
		m, l, ok := strings.Cut(strings.TrimSpace(kv), "=")
		n, err := strconv.Atoi(strings.TrimSpace(l))
		if want, named := modules[strings.TrimSpace(m)]; ok && named && err == nil && n >= want {
			return false
		}
	}
	return true
}

// Identity is how a stack names the programs it compiles. Each function is optional.
type Identity struct {
	// Family strips the per-process counters the stack puts in module names (TF numbers every
	// traced function: a_inference_train_function_18311__…); XLA's own ".N" suffixes are
	// stripped for every stack before.
	Family func(name string) string
	// FunctionKey names the function a family was compiled from, so that the names the stack
	// gives one function in its logs and its dumps meet (ok false: not one of the stack's).
	FunctionKey func(family string) (key string, ok bool)
	// Function is the function a module compiles, as the stack's explanations name it (JAX:
	// jit_train_step → train_step); ok false when the module is not named that way.
	Function func(module string) (fn string, ok bool)
	// Eager says whether a compilation of the stack's producer is of a one-op program the
	// stack compiles for an eager operation (many programs share its name).
	Eager func(family, signature string) bool
	// Program says what a compilation is counted against when that is not its family: programs
	// that share a family without being one program (Keras's train and test steps). ok false:
	// the family.
	Program func(family, module, signature string) (program string, ok bool)
	// Group names a group of modules the stack forms anew when it traces a function again (TF
	// auto-clustering's cluster_0, cluster_1, …), "" for other modules.
	Group func(module string) string
	// DumpProgram is the program a dumped module (of family) belongs to when no log links it
	// to a compilation, when that is not its family (ok false); "" leaves it out.
	DumpProgram func(module, family string) (program string, ok bool)
	// FunctionID is the identity one compiled program has in both the log and the dump, the
	// stack's per-process counters included (TF's traced function: inference_f_272 for
	// __inference_f_272 and a_inference_f_272__…), so that each dump joins its own compilation;
	// ok false: the function key is all there is.
	FunctionID func(module string) (id string, ok bool)
	// Gradient says whether an op's metadata shows it is part of a backward pass (grad: JAX's
	// transpose(jvp(…)), TF's gradient_tape/, PyTorch's *_backward), and whether the metadata is
	// the stack's own, in a form that would show one (ours: TF's op types, PyTorch's aten__ ops;
	// JAX's forward ops look alike with and without a gradient in some versions, so only its
	// backward ops are its own here). A graph with ops of a stack's own and no gradient op
	// computes no gradient. Nil: the stack's dumps do not tell.
	Gradient func(m hlo.Meta) (grad, ours bool)
	// BySignature says the stack keys its compilations by the argument signature its log gives
	// (JAX's argument shapes and types): a signature names a variant of a program, and a
	// signature compiled before that compiles again changed elsewhere in the stack's key.
	BySignature bool
	// ByTrace says a program (its family) is named by the function trace it was compiled from,
	// with no signature (TF's "F [inference_f_272]"): a front end's step traced anew is another
	// such program.
	ByTrace func(family string) bool
	// Role says what a dumped module does among programs that share its family, read from its
	// graph (Keras's train, test and predict steps: "train step"); "" when it does not say.
	Role func(family string, m *hlo.Module) string
}

// Advice is what recomp tells the users of a stack, by situation.
// FrontEnd is a library between the program and a stack that the probe sees the program
// call (Keras's fit, evaluate and predict, on any backend). Where the remedy for a cause is
// the front end's own (the batch size fit is given), its advice replaces the stack's for the
// compilations made under its calls.
type FrontEnd struct {
	Name string
	// Title is its name as users write it ("Keras").
	Title string
	// Probe is what the front end adds to recomp run's probe (nil: nothing).
	Probe *Probe
	// StepRole names the step a program is, as a user reads it, from what its graph does (Identity.Role)
	// and the front end's calls it was compiled under ("" when neither tells; nil: the front end has no
	// steps).
	StepRole func(step string, methods []string) string
	// AnyStack names the kind of dataset its calls can be fed (as the probe records it: "tf.data")
	// that batches the data itself on any backend: its remedies are the front end's own (Steps,
	// Causes), not those On gives for the stack.
	AnyStack string
	// Causes is what to do, by cause kind, about a program compiled again under its calls.
	Causes map[cause.Kind]string
	// Steps is what to do by the front end's step (Keras's "train step", "test step", "predict
	// step") and cause kind, where the loop changes the remedy (a training loop may drop its last
	// partial batch; an evaluation or a prediction must not lose samples). It applies wherever
	// the step is known, from a dump or from the probe.
	Steps map[string]map[cause.Kind]string
	// On is what to do on one stack (by its name), where the remedy differs there (Keras on JAX
	// has no tf.data to batch with): by step as Steps ("" for Causes' place); it comes first.
	On map[string]map[string]map[cause.Kind]string
	// Step names the step a function is, from its name and the file that defines it, when the
	// front end defines it (Keras on JAX: train_step of keras/src/backend/jax/trainer.py is its
	// "train step"); "" when it is none of its steps. Nil: the front end's steps are not told so.
	Step func(file, function string) string
	// Functions names the step a dumped module is from the functions its stack frames name
	// (hlo.Module.FunctionNames: Keras's JAX trainer's make_train_function and train_step, for
	// a step it jits as a lambda); "" when they name none of its steps. Nil: not told so.
	Functions func(names []string) string
	// Log is how logscan reads what the front end prints itself about its loops (Keras's progress
	// lines: logscan.Progress events); nil when nothing.
	Log *logscan.Framework
	// Stepped says whether a program a stack compiled (its family, and where its lambda is
	// defined: Unit.Lambda) may be one of the front end's steps, by its name alone (Keras's
	// one_step_on_data on TF, train_step or a trainer.py lambda on JAX): the programs whose loop
	// its progress lines can tell; step is the step where the name says it ("" where not). Nil:
	// none.
	Stepped func(family, lambda string) (step string, ok bool)
	// LoopStep names the step of the program first compiled in window w, the i-th of the n step
	// programs first compiled there, in order (before: a step program compiled before w; earlier:
	// the windows before w in which step programs were first compiled): "" where the front end's
	// loops leave it open. LoopOf names the loop a compilation of step ran in, in window w ("fit",
	// "fit.evaluate", "evaluate", "predict"; "" where w does not say).
	LoopStep func(w LoopWindow, i, n int, before bool, earlier []LoopWindow) string
	LoopOf   func(step string, w LoopWindow) string
}

// LoopWindow is what a front end's progress lines in a log show of one run of its loop (Keras:
// an epoch of fit from its "Epoch i/n" line, or a bar with no epoch line).
type LoopWindow struct {
	Epoch, Of int  // "Epoch i/n" (0, 0: no epoch line)
	Steps     int  // the steps its last bar counted (0 while unknown)
	Bars      int  // the states of its bar the log shows
	Val       bool // a bar shows a validation metric (Keras's val_…)
	Metrics   bool // a bar shows a metric (Keras's predict shows none)
}

// StepAdvice is what to do about a cause kind of the front end's step (a Steps key) compiled by
// a stack: the stack's own remedy (On), else the step's; "" when it has none.
func (f *FrontEnd) StepAdvice(stack, step string, kind cause.Kind) string {
	if a := f.On[stack][step][kind]; a != "" {
		return a
	}
	return f.Steps[step][kind]
}

// CauseAdvice is what to do about a cause kind of a program compiled under the front end's
// calls, step unknown, by a stack: the stack's own remedy (On), else Causes'; "" when none.
func (f *FrontEnd) CauseAdvice(stack string, kind cause.Kind) string {
	if a := f.On[stack][""][kind]; a != "" {
		return a
	}
	return f.Causes[kind]
}

type Advice struct {
	// Evidence says how to make the stack log its compilations.
	Evidence string
	// Recompiled says how to find out what made a program compile again, when the log does
	// not say.
	Recompiled string
	// Retrace is about the stack's own warnings that it traced a function too often.
	Retrace string
	// Warning is about the stack's other warnings on how the program uses it.
	Warning string
	// Cache says how to enable the stack's executable cache.
	Cache string
	// Group is about a group of modules formed anew (Identity.Group).
	Group string
	// Signatures says how to make the stack's log name the argument signatures of what it
	// compiles ("JAX: JAX_LOG_COMPILES=1").
	Signatures string
	// Executions says what makes the stack log each graph's executions ("PyTorch/XLA's
	// PT_XLA_DEBUG_LEVEL=2").
	Executions string
	// Compiles names what a program runs that the stack compiles ("jit",
	// "tf.function(jit_compile=True)"), and Silences what silences the stack's logging besides
	// Python's and absl's own ("a TF_CPP_MIN_LOG_LEVEL of its own").
	Compiles, Silences string
	// Causes is what to do about a program of the stack that compiled again, by cause kind
	// (batch_size, input_shape, constant_value, …), where the stack has its own way to do it.
	Causes map[cause.Kind]string
	// Rewrapped names how a program of the stack wraps a function anew in each step ("jax.jit
	// of a new lambda or closure"); Grows what grows in a loop and changes its graph
	// ("tf.concat").
	Rewrapped, Grows string
	// Materialize says how to make tensors created on the device inputs before the loop
	// ("PyTorch/XLA: torch_xla.sync() after creating them, …"); StateFirst how to create
	// state before the loop, so the first step already takes it as input ("JAX: opt_state =
	// optimizer.init(params) …").
	Materialize, StateFirst string
	// Inference is what to do, by cause kind, about a program whose graph computes no gradient
	// (Identity.Gradient finds no backward op: an evaluation, scoring or predict loop), where the
	// training loop's remedy would lose data (dropping the last partial batch drops rows whose
	// scores or predictions are wanted).
	Inference map[cause.Kind]string
	// AutoDynamic is what to do about a compilation for a new size of a dimension that the
	// stack then made dynamic, its graph serving every later size (dynamo's automatic dynamic
	// shapes): the cost is that one compilation.
	AutoDynamic string
	// GrowingCache is the stack's remedy for a buffer a step returns grown and is called with
	// again (a key/value cache grown by concatenation each token): one allocated at its largest
	// size and written in place ("PyTorch/XLA: … index_copy_ …").
	GrowingCache string
	// Merged says how to keep tensors left pending before a step out of the step's graph
	// ("PyTorch/XLA: torch_xla.sync() after the epoch-end evaluation, …").
	Merged string
	// SourceLines says what makes the stack's dumps carry each op's source line, where they do
	// not by default ("PyTorch/XLA: XLA_HLO_DEBUG=1 …").
	SourceLines string
	// Unused says that the stack's log shows no cache hit or execution of a compiled program
	// ("JAX logs none").
	Unused string
	// Switching is about executables switched on the device after warm-up (Graphcore's
	// recompilation note).
	Switching string
}

// CounterStart is where name's trailing run of XLA's ".N" uniquifiers begins (len(name) when it
// has none): what `(\.\d+)+$` matches, without the regexp engine, which cost a tenth of a scan
// of a log dense in compile requests (the ledger compares the names of each request).
func CounterStart(name string) int {
	end := len(name)
	for {
		i := end
		for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
			i--
		}
		if i == end || i == 0 || name[i-1] != '.' {
			return end
		}
		end = i - 1
	}
}

// CompileForms are the word forms of compiling in prose, for a Vocabulary's Sweep: "ompiled",
// "ompile " but not "ompiler" (every TF source path holds "tensorflow/compiler/"), so that the
// prefilter passes over most lines of a stack's log; CompileFormsUpper are those in capitals.
// CacheForms and CacheFormsUpper are those of a cache lookup's result.
var (
	CompileForms      = []string{"ompiled", "ompiling", "ompilation", "ompile ", "ompile:", "ompile.", "ompile,", "ompiles"}
	CompileFormsUpper = []string{"OMPILED", "OMPILING", "OMPILATION", "OMPILE "}
	CacheForms        = []string{"ache hit", "ache miss"}
	CacheFormsUpper   = []string{"ACHE HIT", "ACHE MISS"}
)
