package across

import (
	"strconv"
	"strings"
	"time"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/explain"
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
	Ranks    *Ranks
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

// DivergenceKind says how a rank's compile sequence first differs from the majority's; the
// names are part of the JSON contract.
type DivergenceKind string

// Divergence kinds.
const (
	DivergeVariant   DivergenceKind = "different_variant"   // the same program with other inputs (shapes, hash)
	DivergeProgram   DivergenceKind = "different_program"   // another program than the majority's at that point
	DivergeExtra     DivergenceKind = "extra_compilation"   // a request the majority did not make at all
	DivergeMissing   DivergenceKind = "missing_compilation" // the majority made a request this rank did not
	DivergeCacheMiss DivergenceKind = "cache_miss"          // compiled what the majority got from the cache
	DivergeCacheHit  DivergenceKind = "cache_hit"           // got from the cache what the majority compiled
	// DivergeLater: the sequences agree as far as they are listed (ledger.MaxSequence requests)
	// and differ after.
	DivergeLater DivergenceKind = "differs_after_listed"
)

// RankInfo is one rank of a job: its log, its compile sequence's digest and counts, and where
// it first departs from the majority.
type RankInfo struct {
	Rank     string
	Process  string // the process's log, with the rank a launcher's prefix named
	Log      string
	RankFrom string // what named the rank: "launcher", "file name", "--rank-from", "order"
	Group    int    // index in Ranks.Groups
	Sequence *ledger.Sequence
	// Compilations, Hits and CompileTime count its requests (eager one-op programs left out).
	Compilations, Hits int
	CompileTime        time.Duration
	FirstCompile       time.Time
	DateKnown          bool
	Divergence         *Divergence
}

// Divergence is the first compile request at which a rank departs from the majority.
type Divergence struct {
	Rank  string
	Kind  DivergenceKind
	Index int // the request's number in the rank's sequence (1 for the first)
	// Step is the training step the request belongs to (the number in the first line after it
	// that names a step; -1 when none does).
	Step     int
	Program  string
	Module   string
	Variant  string // this rank's (its signature, else its hash)
	Majority string // the majority's variant of the program at that point ("" when none)
	// Args and MajorityArgs are the two variants written short when they are signatures.
	Args, MajorityArgs string
	Compiled           bool // this rank compiled (false: served from a cache)
	File               string
	Line               int
	// Cause is how the rank's module differs from the majority's: from the two ranks' dumps when
	// given (Pair is that comparison), else from the logged signatures (CauseFrom).
	Cause     *diff.Cause
	CauseFrom string
	Pair      *explain.DiffPair
	Summary   string
}

// RankGroup is ranks whose compile sequences are equal.
type RankGroup struct {
	Ranks    []string
	Digest   string
	Requests int
	Majority bool
}

// RankMiss is a request one rank compiled while the majority got it from the cache.
type RankMiss struct {
	Rank, Program, File string
	Line                int
}

// Skew is the largest spread of compile start times between ranks for one request they all
// made.
type Skew struct {
	Spread         time.Duration
	Index          int
	Program        string
	Earliest       string
	Latest         string
	DateKnown      bool
	RanksWithClock int
}

// Ranks is recomp ranks: the logs of one job's ranks, their compile sequences lined up.
type Ranks struct {
	Ranks       []*RankInfo
	Groups      []*RankGroup
	Divergences []*Divergence
	CacheMisses []RankMiss
	Skew        *Skew
	// Scan is what the logs hold, all ranks together (its inputs, warnings and problems).
	Scan     *explain.Scan
	Warnings []string
}

// Consistent reports whether every rank made the same requests.
func (r *Ranks) Consistent() bool { return len(r.Divergences) == 0 }

// Reference is what the reference group is called: the majority, unless it ties with another.
func (r *Ranks) Reference() string {
	if len(r.Groups) > 1 && len(r.Groups[1].Ranks) == len(r.Groups[0].Ranks) {
		return "reference group"
	}
	return "majority"
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

// RankRanges writes rank names compactly: 0-511, 513-1023.
func RankRanges(ranks []string) string {
	var out []string
	for i := 0; i < len(ranks); {
		a, err := strconv.Atoi(ranks[i])
		j := i + 1
		if err == nil {
			for j < len(ranks) {
				b, err := strconv.Atoi(ranks[j])
				if err != nil || b != a+(j-i) {
					break
				}
				j++
			}
		}
		if j-i > 2 {
			out = append(out, ranks[i]+"-"+ranks[j-1])
		} else {
			out = append(out, ranks[i:j]...)
		}
		i = j
	}
	return strings.Join(out, ", ")
}
