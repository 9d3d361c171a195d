package logscan

import "time"

// Kind says what an Event reports.
type Kind string

// Event kinds.
const (
	// CompileRequest is a request to compile a module (TF-IPU "Begin XLA compilation"). It may
	// still be served from a cache.
	CompileRequest Kind = "compile_request"
	// CompileEnd is the end of HLO optimisation for a request (TF-IPU "End XLA compilation").
	CompileEnd Kind = "compile_end"
	// CompileBegin is a real compilation starting: Poplar graph construction, a TF progress-bar
	// header, PopART "Starting compilation", a PopTorch bar that climbs, a JAX compile.
	CompileBegin Kind = "compile_begin"
	// CompileFinished is a real compilation finishing, with its duration when the log says it.
	CompileFinished Kind = "compile_finished"
	// CompileSkipped is a request that needed no engine compilation.
	CompileSkipped Kind = "compile_skipped"
	// ClusterCompiled is TF's "Compiled cluster using XLA!", printed once per process.
	ClusterCompiled Kind = "cluster_compiled"
	// CacheHit is an executable served from a cache.
	CacheHit Kind = "cache_hit"
	// CacheMiss is an executable looked up in a cache and not found.
	CacheMiss Kind = "cache_miss"
	// CacheWrite is an executable written to a cache.
	CacheWrite Kind = "cache_write"
	// CacheNotWritten is a framework saying it did not write a compiled executable to its cache
	// (JAX: under the minimum compile time or entry size, not process 0, the cache disabled, an
	// error writing it); Detail holds its words.
	CacheNotWritten Kind = "cache_not_written"
	// CacheReadError is a framework failing to read an entry of its cache (JAX: "Error reading
	// persistent compilation cache entry", a deserialisation failure); Detail holds its words.
	CacheReadError Kind = "cache_read_error"
	// CacheKeyPart is the hash a framework logged of one part of a cache key (JAX's
	// jax._src.cache_key debug log: computation, jax_lib version, XLA flags, ...): Detail names
	// the part, Hash is its hash.
	CacheKeyPart Kind = "cache_key_part"
	// CacheKeyFlag is a compile flag a framework logged as part of a cache key (JAX: "Including
	// XLA flag in cache key"); Detail is the flag.
	CacheKeyFlag Kind = "cache_key_flag"
	// ExecutableLoad is an executable loaded onto the device.
	ExecutableLoad Kind = "executable_load"
	// RequestDone is a framework finishing a compile request, by compiling or from its cache,
	// with the time it took (JAX "Finished XLA compilation of", which also follows a
	// persistent-cache hit).
	RequestDone Kind = "request_done"
	// Retrace is a framework saying it traced a function again: a JAX tracing-cache miss (its
	// explanation in Reason), a TF tf.function retracing warning or a new FuncGraph for a
	// function traced before, a PyTorch/XLA "CompileTime too frequent" warning (their wording
	// in Detail). Module names the function when the framework does.
	Retrace Kind = "retrace"
	// Trace is a framework tracing a function for the first time (JAX "never seen function",
	// TF's first FuncGraph of a function): not a retrace, but it says the function is the
	// user's own.
	Trace Kind = "trace"
	// Execution is a framework running a graph it has compiled (PyTorch/XLA's Execution
	// Analysis, TF's "Already Compiled for signature").
	Execution Kind = "execution"
	// FrameworkMetric is a counter or metric a framework reports about its compilations
	// (PyTorch/XLA's metrics report: CompileTime, CachedCompile, UncachedCompile, the
	// persistent cache's counters); Detail names it, Count and Duration hold its value.
	FrameworkMetric Kind = "framework_metric"
	// FrameworkWarning is a framework's warning about how the program uses it (PyTorch/XLA's
	// "TransferFromDeviceTime too frequent"); Detail holds its wording.
	FrameworkWarning Kind = "framework_warning"
	// CompileStage is a stage of a compilation before the compiler's own (JAX's tracing and
	// lowering to MLIR), finished; Phase names it ("trace", "lower"), Duration is its time and
	// Module the function or module it is about.
	CompileStage Kind = "compile_stage"
	// PhaseStart and PhaseEnd are Poplar engine phases other than those above.
	PhaseStart Kind = "phase_start"
	PhaseEnd   Kind = "phase_end"
	// Marker is the first line that matched Options.Marker (the warm-up boundary).
	Marker Kind = "marker"
	// Progress is a front end's progress line about its training loop (Keras's "Epoch 2/5", and
	// its bars "4/4 ━━━━ 0s 12ms/step - loss: 0.69 - val_loss: 0.70"): Phase is "epoch" or "bar",
	// Step the count as printed ("2/5", "4/4", "7/Unknown"), Count the epoch or the steps done,
	// and Detail the epoch line ("Epoch 2/5") or a bar's metric names in order, space-separated
	// ("loss val_loss"; "" for none).
	// No compilation: it says in which loop the compilations around it ran.
	Progress Kind = "progress"
)

// Producer names the software that printed a message.
type Producer string

// Producers.
const (
	ProducerTF       Producer = "tf"
	ProducerTFIPU    Producer = "tf-ipu"
	ProducerXLA      Producer = "xla"
	ProducerPoplar   Producer = "poplar"
	ProducerPopLibs  Producer = "poplibs"
	ProducerPopART   Producer = "popart"
	ProducerPopTorch Producer = "poptorch"
	ProducerPoprun   Producer = "poprun"
	ProducerJAX      Producer = "jax"
	ProducerTorchXLA Producer = "torch-xla"
	ProducerNeuron   Producer = "neuron"
	// ProducerDynamo is torch.compile's front end, dynamo, where its own records stand for a
	// compilation (with any backend); under PyTorch/XLA its records explain torch-xla's.
	ProducerDynamo Producer = "torch-dynamo"
	// ProducerKeras is Keras's own progress output (its ProgbarLogger), read as Progress.
	ProducerKeras Producer = "keras"
)

// Signal names the message an event came from, e.g. "poplar:graphConstruction". Two events of
// one kind with the same signal never belong to one compilation.
type Signal string

// Event is one thing a log says about compilation, caching or loading.
type Event struct {
	Kind      Kind
	Producer  Producer
	Signal    Signal
	File      string
	Line      int
	Stamp     string    // the timestamp as printed, "" when the line has none
	Time      time.Time // Stamp parsed; only the clock is meaningful unless DateKnown
	DateKnown bool
	Module    string
	Hash      string // as printed, e.g. 0x1b2c3d4e5f607182
	Path      string
	Phase     string
	Duration  time.Duration // 0 when unknown
	Detail    string        // extra text: a warning's wording, a count
	// Signature is the argument signature a framework logged with a compile request (JAX's global
	// shapes and types).
	Signature string
	// Reason is the framework's own explanation of why it compiles: JAX's tracing-cache-miss
	// text (on a Retrace, explaining the compilation that follows), PyTorch/XLA's cause.
	Reason string
	// InProcess marks a cache miss of a framework's in-memory executable cache (TF-IPU "has not
	// been compiled yet"), which is no miss of a persistent cache.
	InProcess bool
	// Count is a number the message reports: a metric's samples or a counter's value. On a
	// CompileFinished, a Count above 0 is the compilations of Module its process has made, this
	// one included (TF's profiler counts them per process): the count of each process starts at
	// 1, which tells apart the first compilations of processes whose lines carry no process.
	Count int
	// Step is the training step a framework's report is for, as printed (PyTorch/XLA's
	// "[MetricsData; step=4]"), "" when it does not say.
	Step string
	// Library marks a trace of one of the framework's own functions (JAX 0.4 explains those
	// too), which is not the program's code.
	Library bool
	// SeenBefore marks a framework's statement that it had compiled the function before (JAX:
	// "all previously seen cache keys differ"): what follows is a recompilation even when the
	// earlier compilation is not in the log (a rotated log).
	SeenBefore bool
	// Caller is the line of the program's own code that called the function a framework
	// compiles, when the framework names both (PyTorch/XLA under torch.compile: the first frame
	// of the program's own outside the function dynamo compiled), as file:line (function).
	Caller string
	// Rank is the rank a launcher's prefix gave the line ("" when it gave none): mpirun
	// --tag-output, srun --label, torchrun. Each rank is its own process.
	Rank string
	// Graph is what a framework printed of a compiled graph's interface, when it does
	// (PyTorch/XLA's analysis: "inputs 17, outputs 41"); "" otherwise.
	Graph string
	// Dynamic names the inputs' dimensions a compilation made dynamic, one a line as
	// "ARG.size()[DIM]" (dynamo's symbols: automatic dynamic shapes after a size changed, which
	// then serve every size of it); "" when it made none or the record does not say.
	Dynamic string
	// Key is the framework's own id of the compilation the event is about (dynamo's compile id,
	// "0/1"), "" when its record names none: a log and a trace of one process that record the
	// same compilation are joined by it.
	Key string
	// KeyParts are the parts of the cache key a lookup's record lists with their values (torch's
	// trace: the components of each FX-graph key), nil when it lists none.
	KeyParts []KeyPart
	// Saved is the compile time a cache hit saved, as the stack's own record says
	// (AOTAutograd's time_saved_ms); 0 when it does not say.
	Saved time.Duration
	// Repeat marks an event that repeats the one just before it (a record printed twice by two
	// handlers, or two processes' alike records), emitted only with Options.KeepRepeats.
	Repeat bool
}

// KeyPart is one part of a cache key as a stack's record lists it: its name, its hash, and its
// value as recomp shows it (a long value by a short form and its hash).
type KeyPart struct {
	Name, Hash, Value string
}

// Warning is a line that could not be used as it stands.
type Warning struct {
	File    string
	Line    int
	Message string
}

// Stats describes one scanned input.
type Stats struct {
	Lines int
	Bytes int64
	// Binary says why the input is not a text log (an executable, a core file, NUL bytes at
	// its start), "" for a text log. Lines found in binary data are still read, but they are
	// no evidence a gate can rely on.
	Binary string
	// CutBegin says the input ends inside a line that begins a compilation (its last line,
	// unterminated, holds the start of such a record): "" when it does not.
	CutBegin string
	// Threads are the thread ids the records' glog/absl prefixes name (the first
	// MaxThreads distinct ones): the main thread's is the process id, so two logs that share
	// one are one process's. First and Last are the times of the first and last events that
	// have one (zero when none; a clock without a date in the year 0, or on day 0).
	Threads      []string
	First, Last  time.Time
	WarningCount int       // all warnings, including those not kept
	Warnings     []Warning // the first MaxWarnings
	// Unread counts the lines that use a framework's compile vocabulary (Framework.Vocabulary)
	// but that no rule read: most likely compile records in a wording recomp does not know, so
	// that the log's silence proves nothing. UnreadLines are the first MaxUnread.
	Unread      int
	UnreadLines []UnreadLine
	// RankLinesLeftOut counts the lines of ranks past MaxRanks in one log: not read, so that
	// the counts leave out whatever they say.
	RankLinesLeftOut int
}

// MaxThreads is how many thread ids a Scanner keeps.
const MaxThreads = 64

// MaxWarnings is how many warnings a Scanner keeps; the rest are only counted.
const MaxWarnings = 50

// UnreadLine is a line that looks like a compile record of a framework but that no rule read.
type UnreadLine struct {
	File      string
	Line      int
	Framework string // whose vocabulary it uses
	Text      string // the message, cut to MaxUnreadText bytes
}

// MaxUnread is how many unread lines a Scanner keeps; the rest are only counted.
const MaxUnread = 5

// MaxUnreadText bounds the text kept of an unread line.
const MaxUnreadText = 200
