package explain

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/ledger"
)

// The ranks of one job (which rank diverged from the others, and how): a launcher's run is one
// job (its processes' logs read together), so they are computed with the run's logs; their
// layout is in report (ranks.go).

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
	Rank    string
	Process string // the process's log, with the rank a launcher's prefix named
	Log     string
	// Name is the process as the user named it: the run folder or log given (with the rank a
	// launcher's prefix named).
	Name     string
	RankFrom string // what named the rank: "launcher", "--rank-from", "environment", "probe", "file name", "order"
	Group    int    // index in Ranks.Groups
	Sequence *ledger.Sequence
	// Compilations, Hits and CompileTime count its requests (eager one-op programs left out).
	Compilations, Hits int
	CompileTime        time.Duration
	FirstCompile       time.Time
	DateKnown          bool
	Divergence         *Divergence
	// NoEvidence says its log holds no compile evidence (its compile logging was off?): that
	// it made the same requests as the others is then unknown, not shown.
	NoEvidence bool
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
	// Site is the line of the program's own code that made the request, when the log says.
	Site string
	File string
	Line int
	// Cause is how the rank's module differs from the majority's: from the two ranks' dumps when
	// given (Pair is that comparison), else from the logged signatures (CauseFrom).
	Cause     *diff.Cause
	CauseFrom string
	Pair      *DiffPair
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
	Scan     *Scan
	Warnings []string
	// Split are logs that look like one rank's log in parts (ledger.Scan.Parts), each lined up
	// as a rank of its own: what they show of each other is no departure, and the answer is
	// inconclusive unless a rank outside them departed.
	Split [][]string
	// SplitNotes say so, one per split log (among Warnings too).
	SplitNotes []string
}

// SplitUnknown says, when logs look like one rank's log in parts and no rank outside them
// departed, that whether the ranks agree is unknown ("" otherwise).
func (r *Ranks) SplitUnknown() string {
	if len(r.Split) == 0 || r.Departed() {
		return ""
	}
	what := "1 group of logs looks"
	if len(r.Split) > 1 {
		what = strconv.Itoa(len(r.Split)) + " groups of logs look"
	}
	return what + " like one rank's log in parts, lined up as ranks: whether the ranks made the same compile requests is unknown"
}

// Departed says whether a rank departed: one whose log is not part of a split log (the parts
// of one are not ranks).
func (r *Ranks) Departed() bool {
	if len(r.Split) == 0 {
		return len(r.Divergences) > 0
	}
	for _, d := range r.Divergences {
		i := slices.IndexFunc(r.Ranks, func(ri *RankInfo) bool { return ri.Rank == d.Rank })
		if i < 0 || !slices.ContainsFunc(r.Split, func(g []string) bool { return slices.Contains(g, r.Ranks[i].Log) }) {
			return true
		}
	}
	return false
}

// Consistent reports whether every rank made the same requests.
func (r *Ranks) Consistent() bool { return len(r.Divergences) == 0 }

// WithoutEvidence names the ranks whose logs hold no compile evidence: a job with one is not
// shown consistent, only not seen to diverge.
func (r *Ranks) WithoutEvidence() []string {
	out := []string{}
	for _, ri := range r.Ranks {
		if ri.NoEvidence {
			out = append(out, ri.Rank)
		}
	}
	return out
}

// Reference is what the reference group is called: the majority, unless it ties with another.
func (r *Ranks) Reference() string {
	if len(r.Groups) > 1 && len(r.Groups[1].Ranks) == len(r.Groups[0].Ranks) {
		return "reference group"
	}
	return "majority"
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

// Outcome is the ranks': Found when a rank departed, else Inconclusive when a rank's log holds
// no compile evidence or a log was split (as guard is without evidence), else Clean.
func (r *Ranks) Outcome() gate.Outcome {
	switch {
	case r.Departed():
		return gate.Found
	case len(r.WithoutEvidence()) > 0 || len(r.Split) > 0:
		return gate.Inconclusive
	}
	return gate.Clean
}
