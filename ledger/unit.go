package ledger

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/frameworks/cause"
	"github.com/recomp/recomp/internal/lazyre"
	"github.com/recomp/recomp/logscan"
)

// Unit is one compile request or compilation: the events that belong to it are joined.
type Unit struct {
	Module string
	Family string
	// Program is what a recompilation is counted against: the family, or for eager one-op
	// programs (which share a name across different programs) the family and the argument
	// signature.
	Program  string
	Hash     string
	Producer logscan.Producer
	Input    int // the input it came from (the index of its log)
	// Process names the process it belongs to: its log, with the rank a launcher's prefix named
	// ("job.log [rank 2]").
	Process   string
	File      string
	Line      int
	LastLine  int  // the last line that belongs to this unit
	Requested bool // a compile request was logged
	Compiled  bool // not served from a cache
	Hit       bool
	Miss      bool
	Written   bool
	Finished  bool
	Duration  time.Duration
	// TraceTime and LowerTime are the stages before the compiler's own, where the framework
	// logs them (JAX's tracing and lowering to MLIR); Duration is the compiler's.
	TraceTime time.Duration
	LowerTime time.Duration
	// Begin is the time of the unit's first line (zero when the log has no clock); DateKnown
	// says whether its date is meaningful.
	Begin     time.Time
	DateKnown bool
	// PID is the id of the process that wrote it, when a probe told apart the processes that
	// wrote its log (ReadOptions.Stages); 0 otherwise.
	PID int
	// Seq is the unit's number among the compilations of its program in its process (1 for the
	// first); 0 when it was not compiled.
	Seq int
	// AfterWarmup marks a compilation after warm-up; Late says why ("compiled again", "after
	// the warm-up marker", "graph hash not in the baseline", ...).
	AfterWarmup bool
	Late        string
	// Settled says why a program's second compilation is set-up rather than a recompilation (the
	// first graph ran once and never again, the second ran for the rest of the run: state the
	// first step created); empty otherwise.
	Settled string
	// Step is the step of its process it compiled in (1 for the first), counted by the steps the
	// process had ended before it (PyTorch/XLA's executions at torch_xla.sync, with
	// PT_XLA_DEBUG_LEVEL=2): meaningful only where the process's Steps is not 0.
	Step int
	// NoGrad says recomp run's probe saw autograd off in the step that compiled it
	// (torch.no_grad, inference_mode: a scoring or evaluation loop).
	NoGrad bool
	// Dynamic names the inputs' dimensions it made dynamic (logscan.Event.Dynamic): a size that
	// changed compiled once more, into a graph that serves every later size.
	Dynamic string
	tick    int // the ledger's count of compilations and executions when it was compiled
	// Eager marks a framework's one-op program compiled for an eager operation (JAX's
	// jit_convert_element_type and the like): many programs share its name.
	Eager bool
	// Retraced marks a new TF auto-clustering cluster compiled after the graph's clusters had
	// already run: the function was traced again (the group is ClusterGroup(Module)).
	Retraced bool
	// SeenBefore marks a compilation of a function the framework said it had compiled before
	// (JAX's tracing-cache-miss explanation of a retrace): a recompilation even when the earlier
	// compilation is not in the log.
	SeenBefore bool
	// User marks a function the framework explained as the program's own (a JAX tracing-cache
	// miss or first trace, a TF FuncGraph): never an eager one-op program.
	User bool
	// Signature is what the framework logged about the arguments (JAX's global shapes and
	// types); Why is the framework's own explanation of the compile (JAX's tracing-cache-miss
	// text, PyTorch/XLA's compilation cause).
	Signature string
	Why       string
	// Facts are what Why states, read by the stack's unit when the ledger joined the
	// explanation to the compilation (frameworks.Facts): the construct, the arguments and their
	// old → new types, a first trace; nil when Why is "" or says none of them.
	Facts []cause.Fact
	// Graph is what the framework printed of the graph's interface (PyTorch/XLA: "inputs 17,
	// outputs 41"); "" when it did not.
	Graph string
	// Undecided says why the log cannot tell whether this second compilation of a program is
	// set-up (state the first step created) or a recompilation; "" otherwise.
	Undecided string
	// Site is the line of the program that made the framework compile, when the log says
	// (JAX's tracing-cache-miss "at FILE:LINE", PyTorch/XLA's first frame of the program's own
	// code); zero when it does not.
	Site Site
	// Via is the front end's call the compilation ran under, when the probe saw one (a Keras
	// fit, evaluate or predict); nil when none.
	Via *Call
	// LogStep is the front end's step the program is, as the front end's own progress lines in
	// the log tell it (Keras: "train step", "test step", "predict step"), and LogLoop the loop
	// this compilation ran in ("fit", "fit.evaluate" for fit's validation, "evaluate",
	// "predict"): "" where they do not tell. Epoch is the epoch of its process it compiled in (1
	// for the first) where the log marks the epochs of one fit (Keras's "Epoch i/n"); 0 outside
	// them or when nothing marks them.
	LogStep, LogLoop string
	Epoch            int
	// Static are the static arguments the probe saw the framework trace the function with
	// (JAX's static_argnums and static_argnames: name and repr), in the call's order; nil when
	// the probe saw none.
	Static []StaticArg
	// Lambda is where the anonymous function the framework traced is defined ("trainer.py:270",
	// frameworks.LambdaSite), "" for a named one: it tells apart the lambdas of one module name.
	Lambda string
	// Probed is when the probe saw the compilation happen (its compile record; zero when none):
	// the time of a compilation whose log lines carry none.
	Probed time.Time
	// KeyParts are the hashes a framework logged of the parts of the unit's cache key (JAX's
	// jax._src.cache_key log: computation, jax_lib version, XLA flags, ...), in order; KeyFlags
	// are the compile flags it logged as hashed into the key.
	KeyParts []KeyPart
	KeyFlags []string
	// NotWritten is the framework's statement that it did not write the compiled executable to
	// its cache (JAX: under the minimum compile time or entry size, not process 0, the cache
	// disabled, an error writing it); ReadError that it could not read the cache's entry.
	NotWritten *Quote
	ReadError  *Quote
	// Saved is the compile time a cache hit saved, as the stack's record says (AOTAutograd's
	// time_saved_ms in torch's trace); 0 when nothing says.
	Saved time.Duration

	end      time.Time
	signals  []logscan.Signal
	ownsLoad bool
	marked   bool // the warm-up marker had been seen when the unit began
}

func (u *Unit) seen(sig logscan.Signal) bool {
	for _, s := range u.signals {
		if s == sig {
			return true
		}
	}
	return false
}

// StaticArg is one static argument of a traced call: its parameter's name and its value as the
// program's language prints it (Python's repr, cut short).
type StaticArg struct {
	Name, Value string
}

// KeyPart is one part of a cache key and the hash a framework logged of it.
type KeyPart struct {
	Name, Hash string
	// Value is the part's value where the stack's record gives it (torch's trace), else "".
	Value string
}

// Quote is a framework's own words, where it said them.
type Quote struct {
	Producer logscan.Producer
	File     string
	Line     int
	Text     string
}

// Variant is what tells two compilations of one program apart across processes: the argument
// signature the framework logged (JAX's shapes and types), else the graph hash (a cache key
// can differ between processes of one job: JAX folds the device assignment into it on CPU).
func (u *Unit) Variant() string {
	if u.Signature != "" {
		return u.Signature
	}
	return u.Hash
}

// Load is one executable loaded onto the device.
type Load struct {
	Input       int
	File        string
	Line        int
	Duration    time.Duration
	Begin       time.Time
	DateKnown   bool // Begin has a date, not only a time of day
	AfterWarmup bool
	// Owned is the first load after a compilation or cache hit: the load of that executable,
	// which happens whatever the warm-up.
	Owned bool
}

// Unnamed is the family of compilations whose log lines name no module.
const Unnamed = "(unnamed)"

// Limits on what a Ledger lists; everything is counted.
const (
	// MaxListed bounds Report.Late, Report.LateLoads and Report.Timeline.
	MaxListed = 1000
	// MaxUnits bounds Module.Units.
	MaxUnits = 1000
	// MaxHashes bounds the distinct hashes a Module tracks and lists; HashCount says when
	// there were more.
	MaxHashes = 4096
	// maxTexts bounds Module.Names, Reasons and Signatures.
	maxTexts = 64
	// MaxFamilies bounds the module families a Ledger (one process) accounts one by one. The
	// units of further families are counted in the Summary (compilations, recompilations,
	// after warm-up: the gate sees them all) but their families are not listed:
	// Summary.FamiliesNotListed says how many there were.
	MaxFamilies = 10_000
	// MaxListedUnits bounds the units the families of one Ledger list in Module.Units
	// together (each at most MaxUnits); the others are counted.
	MaxListedUnits = 100_000
)

// Site is a line of source: where a program called what compiled.
type Site struct {
	File     string
	Line     int
	Function string
}

// String writes a site as file:line (function), or "" for none.
func (s Site) String() string {
	if s.File == "" {
		return ""
	}
	out := s.File
	if s.Line > 0 {
		out += ":" + strconv.Itoa(s.Line)
	}
	if s.Function != "" {
		out += " (" + s.Function + ")"
	}
	return out
}

// User says whether a site is in the program's own code, not in a library's (site-packages, or
// a library's package path in a source checkout) or the standard library.
func (s Site) User() bool {
	return s.File != "" && frameworks.IsUserFile(s.File)
}

var reSite = lazyre.New(`^(.+?):(\d+)(?::\d+)? \((.*)\)$|^(.+?):(\d+)(?::\d+)?$`)

// ParseSite reads the places frameworks print: "FILE:LINE:COL (FUNCTION)" (JAX),
// "FILE:LINE (FUNCTION)" (PyTorch/XLA's frames as recomp names them), "FILE:LINE".
func ParseSite(v string) Site {
	m := reSite.FindStringSubmatch(strings.TrimSpace(v))
	switch {
	case m == nil:
		return Site{}
	case m[1] != "":
		n, _ := strconv.Atoi(m[2])
		return Site{File: m[1], Line: n, Function: m[3]}
	default:
		n, _ := strconv.Atoi(m[5])
		return Site{File: m[4], Line: n}
	}
}

// Call is a call of a front end (frameworks.FrontEnd) the program made, and the data it was
// given where the probe could tell.
type Call struct {
	FrontEnd string // the front end's name ("keras")
	Method   string // "fit", "evaluate", "predict"
	// Samples and BatchSize are the call's on arrays (0 when its data is a dataset).
	Samples, BatchSize int
	// Model names the model the call was made on, with its process ("" when the probe did not say).
	Model string
	// Data is the kind of dataset the call was given ("tf.data"; "" for arrays and the rest).
	Data string
	// Within is the method of the call of the same front end, model and process this one ran
	// inside ("" when none): Keras's fit runs its validation as an evaluate call.
	Within string
}

// Loop names the call for its front end: its method, after the method of the call it ran inside
// ("fit.evaluate": fit's validation).
func (c *Call) Loop() string {
	if c.Within == "" {
		return c.Method
	}
	return c.Within + "." + c.Method
}

// SortUnits puts units in the order of the logs: by input, then line (a module lists its own
// units only).
func SortUnits(us []*Unit) {
	slices.SortStableFunc(us, func(a, b *Unit) int {
		return cmp.Or(cmp.Compare(a.Input, b.Input), cmp.Compare(a.Line, b.Line))
	})
}

// explained joins the stack's explanation of the compilation, why, and the facts its unit reads
// in it (frameworks.Facts): read once here, so that what it says reaches the verdict, the live
// lines and the findings as one value.
func (u *Unit) explained(why string) {
	u.Why, u.Facts = why, frameworks.Facts(why)
}
