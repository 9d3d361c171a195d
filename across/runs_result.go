package across

import (
	"fmt"
	"time"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/ledger"
)

// The results of package across: two runs compared (why run B missed run A's cache), the
// ranks of one job (which rank diverged), a run time held against its warm-up (did warm-up
// cover it), and recomp guard's report. Their layouts are in report (runs.go, ranks.go,
// coverage.go and ci.go).

// Guard is the report of recomp guard: the scan and the gate's verdict.
type Guard struct {
	Scan *explain.Scan
	Gate *gate.Result
	// Coverage is the run time held against its warm-up (--covered-by); Ranks the ranks lined
	// up (--ranks-consistent). nil when not asked for.
	Coverage *Coverage
	Ranks    *explain.Ranks
}

// MissReason says why run B compiled a program run A's cache did not serve; the names are part
// of the JSON contract.
type MissReason string

// Why B missed A's cache: a closed list.
const (
	// MissGraphDiffers: B's graph differs from A's (Cause says how).
	MissGraphDiffers MissReason = "graph_differs"
	// MissKeyOutsideGraph: the graph is the same up to names and metadata, and the cache key
	// changed outside it (XLA flags, compile options, versions, devices: Component says which
	// when the logs or manifests show it).
	MissKeyOutsideGraph MissReason = "key_changed_outside_graph"
	// MissNeverWritten: A compiled the same key and did not write it (Quote: A's own words).
	MissNeverWritten MissReason = "never_written"
	// MissEvicted: A wrote the entry, and the cache folder no longer holds it.
	MissEvicted MissReason = "evicted"
	// MissUnreadable: B found the entry and could not read it (a deserialisation failure).
	MissUnreadable MissReason = "unreadable"
	// MissReadOnly: A could not write the entry: the cache folder is read-only.
	MissReadOnly MissReason = "read_only"
	// MissNotInA: A never compiled the program.
	MissNotInA MissReason = "not_in_a"
	// MissNotLookedUp: B's log shows no lookup in a cache (its persistent cache, or the logging of
	// it, was off).
	MissNotLookedUp MissReason = "not_looked_up"
	// MissUnknown: the files do not say (Summary says what would).
	MissUnknown MissReason = "unknown"
)

// RunSide is one of the two runs compared: what was read of it.
type RunSide struct {
	Path     string
	Logs     []string
	Dump     string
	Manifest string
	Caches   []string
	// Skipped are the warnings for files of a folder left out (a *.log that is a FIFO).
	Skipped []string
	// Traces are a run folder's trace files (torch's structured trace: runfolder.Folder.Trace),
	// read with its run.log.
	Traces []string
}

// Difference is a setting or version that differs between two runs ("" where one run lacks it).
type Difference struct {
	Name, A, B string
}

// ProgramVerdict is one compile request of run B: whether A's cache entry served it, and if not,
// why.
type ProgramVerdict struct {
	Program   string // the program (module family, or the log's identity)
	Module    string
	Signature string // the argument signature B logged, when it did
	Args      string // the signature written short (f32[8,4], f32[32,8])
	File      string // B's compile request
	Line      int
	Served    bool // B got the executable from the cache
	// Saved is the compile time a served request did not spend: A's logged compile time of that
	// key, else the seconds JAX stored in the cache entry (whole seconds); SavedFrom says which
	// ("log", "cache entry") and is "" when unknown.
	Saved     time.Duration
	SavedFrom string
	// KeyA, KeyB are the cache keys (graph hashes) of A's counterpart and of B's request.
	KeyA, KeyB string
	// Counterpart is A's compile request of the program B's is compared with (nil when A has none).
	CounterpartFile string
	CounterpartLine int
	Reason          MissReason
	Summary         string
	// Component names the part of the cache key that changed outside the graph ("XLA flags",
	// "jax_lib version", …) when something shows it; Changed lists the exact changes (a flag
	// added or removed, a version old → new).
	Component string
	Changed   []string
	// Quote is the framework's own words about the entry (A's "Not writing persistent cache
	// entry …", B's "Error reading …").
	Quote *ledger.Quote
	// Cause is how the graph differs (graph_differs), from the dumps when both are given (Pair
	// is that comparison), else from the logged signatures (CauseFrom says which).
	Cause     *diff.Cause
	CauseFrom string
	Pair      *explain.DiffPair
	Advice    string

	// decided is the part of the key that decided the miss, where the keys' parts were compared
	// with their values (partKnown).
	decided   framework.KeyPart
	partKnown bool
}

// RunsDiff is recomp diff of two runs (run folders, or logs with their dumps): for each program
// run B compiled or got from the cache, whether run A's cache served it and why not.
type RunsDiff struct {
	A, B     RunSide
	Programs []*ProgramVerdict
	// Eager counts B's eager one-op compilations, left out.
	Eager int
	// Settings and Versions are what the two runs' manifests say differently.
	Settings []Difference
	Versions []Difference
	// Dumps compares the two dumps module by module (nil unless both runs have one).
	Dumps    *explain.Diff
	Warnings []string
}

// Missed counts B's compilations that A's cache did not serve, by reason.
func (r *RunsDiff) Missed() (total int, by map[MissReason]int) {
	by = map[MissReason]int{}
	for _, p := range r.Programs {
		if !p.Served {
			total++
			by[p.Reason]++
		}
	}
	return total, by
}

// SavedTotal is the compile time B's cache hits saved, as far as it is known.
func (r *RunsDiff) SavedTotal() time.Duration {
	var t time.Duration
	for _, p := range r.Programs {
		if p.Served {
			t += p.Saved
		}
	}
	return t
}

// Request is a compile request held against the warm-up: its program and shape, and its line.
type Request struct {
	Program   string
	Module    string
	Signature string
	Args      string // the signature written short
	Hash      string
	File      string
	Line      int
}

// WarmupVariant is one program and shape the warm-up compiled (or got from a cache).
type WarmupVariant struct {
	Request
	// Uses counts the run-time requests seen to use it (compiled again, a cache hit); see
	// Coverage.UseKnown.
	Uses int
}

// Uncovered is a run-time compilation no warm-up variant covers.
type Uncovered struct {
	Request
	Step     int // -1 when no line after it names a step
	Duration time.Duration
	// Nearest is the warm-up variant of the program closest to it (nil when the warm-up never
	// compiled the program); PadTo says the nearest is one the inputs could be padded to.
	Nearest *WarmupVariant
	PadTo   bool
	Cause   *diff.Cause
	Summary string
}

// Coverage holds a run time against its warm-up: which run-time compilations the warm-up's
// programs and shapes covered, which it did not, and which warm-up variants were never used.
type Coverage struct {
	Warmup   string // the warm-up's log
	Marker   string // the --after expression that split it, "" for a whole log
	By       string // what a compilation is matched by: "signature", "hash" or "program"
	Variants []*WarmupVariant
	// Runtime counts the run-time compilations held against the warm-up; Covered those a
	// warm-up variant covered.
	Runtime, Covered int
	Uncovered        []*Uncovered
	// Unmatched counts the run-time compilations of a program the warm-up compiled that cannot
	// be matched to one of its variants: one of the two logs names neither argument signature
	// nor graph hash for it. UnmatchedPrograms names their programs (the first 20).
	Unmatched         int
	UnmatchedPrograms []string
	// UseKnown says whether the run-time logs can show that a warm-up variant was used (a cache
	// hit, an execution the framework logs); without it, a variant not compiled again is "not
	// seen", not "unused".
	UseKnown bool
	Notes    []string
}

// Unused returns the warm-up variants no run-time request was seen to use.
func (c *Coverage) Unused() []*WarmupVariant {
	var out []*WarmupVariant
	for _, v := range c.Variants {
		if v.Uses == 0 {
			out = append(out, v)
		}
	}
	return out
}

// SavedText says what a cache hit saved and where the figure comes from ("" when unknown):
// "saved 1.2s", "saved 3s (from the compile time stored in the cache entry)".
func SavedText(v *ProgramVerdict) string {
	switch v.SavedFrom {
	case "log":
		return fmt.Sprintf("saved %s", ledger.FormatDuration(v.Saved))
	case "cache entry":
		return fmt.Sprintf("saved %s (from %s)", ledger.FormatDuration(v.Saved), frameworks.KeyedCache().Words().Stored)
	case "trace":
		return fmt.Sprintf("saved %s (as the trace says: AOTAutograd's time_saved_ms)", ledger.FormatDuration(v.Saved))
	}
	return ""
}

// Outcome is the gate's.
func (g *Guard) Outcome() gate.Outcome { return g.Gate.Outcome() }

// Outcome is the comparison's: Inconclusive when a module could not be read, Found when B
// compiled anything A's cache did not serve (or the dumps differ), else Clean.
func (r *RunsDiff) Outcome() gate.Outcome {
	missed, _ := r.Missed()
	switch {
	case r.Dumps != nil && len(r.Dumps.Problems) > 0:
		return gate.Inconclusive
	case missed > 0, r.Dumps != nil && r.Dumps.Differs():
		return gate.Found
	}
	return gate.Clean
}
