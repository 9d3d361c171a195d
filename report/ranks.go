package report

import (
	"fmt"
	"strconv"
	"time"

	"github.com/recomp/recomp/explain"
)

// recomp ranks in every format: a headline (how many ranks, how many groups, who departed),
// the groups, each rank's first divergence with its cause, the ranks that compiled what the
// others got from the cache, the compile-start skew, and (JSON) one object per rank: the unit a
// log pipeline ingests.

// maxTextRanks bounds the ranks the text and Markdown formats list one by one.
const maxTextRanks = 64

// RanksHeadline says in one line whether the ranks agree.
func RanksHeadline(r *explain.Ranks) string {
	s := fmt.Sprintf("%s, %s", plural(len(r.Ranks), "rank", "ranks"), plural(len(r.Groups), "group", "groups"))
	if u := r.SplitUnknown(); u != "" {
		return s + ": " + u
	}
	if r.Consistent() {
		if none := r.WithoutEvidence(); len(none) > 0 {
			return s + ": no rank departed, but " + plural(len(none), "rank's log", "ranks' logs") + " (" + explain.RankRanges(none) +
				") hold no compile evidence: whether they made the same compile requests is unknown"
		}
		return s + ": every rank made the same compile requests"
	}
	var who []string
	for _, d := range r.Divergences {
		who = append(who, d.Rank)
	}
	return s + ": " + plural(len(who), "rank", "ranks") + " departed from the " + r.Reference() + " (" + explain.RankRanges(who) + ")"
}

func divergenceStepText(d *explain.Divergence) string {
	if d.Step < 0 {
		return ""
	}
	return fmt.Sprintf(", step %d", d.Step)
}

func divergenceWhat(d *explain.Divergence) string {
	if d.Kind == explain.DivergeMissing || d.Kind == explain.DivergeLater {
		return ""
	}
	if d.Compiled {
		return " (compiled)"
	}
	return " (served from the cache)"
}

func skewText(s *explain.Skew) string {
	if s.Spread == 0 {
		return fmt.Sprintf("none: the %d ranks with a clock started each compilation they share at the same time (largest spread 0ms)", s.RanksWithClock)
	}
	return fmt.Sprintf("%s at request %d (%s): rank %s started first, rank %s last (%d ranks with a clock)",
		dur(s.Spread), s.Index, s.Program, s.Earliest, s.Latest, s.RanksWithClock)
}

// RanksJSON is the document of recomp ranks (and the ranks object of guard --ranks-consistent).
type RanksJSON struct {
	Version    int  `json:"version"`
	Consistent bool `json:"consistent"`
	// WithoutEvidence are the ranks whose logs hold no compile evidence (additive).
	WithoutEvidence []string         `json:"without_evidence"`
	Ranks           []RankJSON       `json:"ranks"`
	Groups          []RankGroupJSON  `json:"groups"`
	Divergences     []DivergenceJSON `json:"divergences"`
	CacheMisses     []RankMissJSON   `json:"cache_misses"`
	Skew            *SkewJSON        `json:"skew"`
	Inputs          []InputJSON      `json:"inputs"`
	Warnings        []string         `json:"warnings"`
	// SplitLogs are logs that look like one rank's log in parts, each lined up as a rank (additive).
	SplitLogs [][]string `json:"split_logs"`
}

// RankJSON is one rank: what a log pipeline ingests per rank (jq -c '.ranks[]').
type RankJSON struct {
	Rank           string          `json:"rank"`
	RankFrom       string          `json:"rank_from"`
	Process        string          `json:"process"`
	Log            string          `json:"log"`
	Name           string          `json:"name"`
	Group          int             `json:"group"`
	SequenceDigest string          `json:"sequence_digest"`
	Requests       int             `json:"requests"`
	Compilations   int             `json:"compilations"`
	CacheHits      int             `json:"cache_hits"`
	CompileSeconds float64         `json:"compile_seconds"`
	EagerRequests  int             `json:"eager_requests"`
	FirstCompile   string          `json:"first_compile,omitempty"`
	Diverged       bool            `json:"diverged"`
	Divergence     *DivergenceJSON `json:"divergence"`
}

type RankGroupJSON struct {
	Ranks    []string `json:"ranks"`
	Size     int      `json:"size"`
	Digest   string   `json:"digest"`
	Requests int      `json:"requests"`
	Majority bool     `json:"majority"`
}

type DivergenceJSON struct {
	Rank            string     `json:"rank"`
	Kind            string     `json:"kind"`
	Request         int        `json:"request"`
	Step            *int       `json:"step"`
	Program         string     `json:"program"`
	Module          string     `json:"module"`
	Variant         string     `json:"variant"`
	MajorityVariant string     `json:"majority_variant"`
	Args            string     `json:"args,omitempty"`
	MajorityArgs    string     `json:"majority_args,omitempty"`
	Compiled        bool       `json:"compiled"`
	CallSite        string     `json:"call_site"`
	File            string     `json:"file"`
	Line            int        `json:"line"`
	Summary         string     `json:"summary"`
	Cause           *CauseJSON `json:"cause,omitempty"`
	CauseFrom       string     `json:"cause_from,omitempty"`
	Pair            *PairJSON  `json:"pair,omitempty"`
}

type RankMissJSON struct {
	Rank    string `json:"rank"`
	Program string `json:"program"`
	File    string `json:"file"`
	Line    int    `json:"line"`
}

type SkewJSON struct {
	Seconds        float64 `json:"seconds"`
	Request        int     `json:"request"`
	Program        string  `json:"program"`
	EarliestRank   string  `json:"earliest_rank"`
	LatestRank     string  `json:"latest_rank"`
	RanksWithClock int     `json:"ranks_with_clock"`
}

func divergenceDocument(d *explain.Divergence) *DivergenceJSON {
	if d == nil {
		return nil
	}
	return &DivergenceJSON{Rank: d.Rank, Kind: string(d.Kind), Request: d.Index, Step: stepRef(d.Step), Program: d.Program, Module: d.Module,
		Variant: d.Variant, MajorityVariant: d.Majority, Args: d.Args, MajorityArgs: d.MajorityArgs, Compiled: d.Compiled, CallSite: d.Site, File: d.File,
		Line: d.Line, Summary: d.Summary, Cause: causeRef(d.Cause), CauseFrom: d.CauseFrom, Pair: pairRef(d.Pair)}
}

// RanksDocument is the JSON document of recomp ranks.
func RanksDocument(r *explain.Ranks) RanksJSON {
	doc := RanksJSON{Version: JSONVersion, Consistent: r.Consistent() && len(r.WithoutEvidence()) == 0 && len(r.Split) == 0, SplitLogs: nonNil(r.Split), WithoutEvidence: r.WithoutEvidence(), Ranks: []RankJSON{}, Groups: []RankGroupJSON{},
		Divergences: []DivergenceJSON{}, CacheMisses: []RankMissJSON{}, Inputs: []InputJSON{}, Warnings: nonNil(r.Warnings)}
	for _, ri := range r.Ranks {
		rj := RankJSON{Rank: ri.Rank, RankFrom: ri.RankFrom, Process: ri.Process, Log: ri.Log, Name: ri.Name, Group: ri.Group + 1,
			SequenceDigest: ri.Sequence.DigestString(), Requests: ri.Sequence.Count, Compilations: ri.Compilations, CacheHits: ri.Hits,
			CompileSeconds: seconds(ri.CompileTime), EagerRequests: ri.Sequence.Eager, Diverged: ri.Divergence != nil,
			Divergence: divergenceDocument(ri.Divergence)}
		if !ri.FirstCompile.IsZero() {
			if ri.DateKnown {
				rj.FirstCompile = ri.FirstCompile.Format(time.RFC3339Nano)
			} else {
				rj.FirstCompile = ri.FirstCompile.Format("15:04:05.000000")
			}
		}
		doc.Ranks = append(doc.Ranks, rj)
	}
	for _, g := range r.Groups {
		doc.Groups = append(doc.Groups, RankGroupJSON{Ranks: nonNil(g.Ranks), Size: len(g.Ranks), Digest: g.Digest, Requests: g.Requests, Majority: g.Majority})
	}
	for _, d := range r.Divergences {
		doc.Divergences = append(doc.Divergences, *divergenceDocument(d))
	}
	for _, m := range r.CacheMisses {
		doc.CacheMisses = append(doc.CacheMisses, RankMissJSON(m))
	}
	if s := r.Skew; s != nil {
		doc.Skew = &SkewJSON{Seconds: seconds(s.Spread), Request: s.Index, Program: s.Program, EarliestRank: s.Earliest, LatestRank: s.Latest,
			RanksWithClock: s.RanksWithClock}
	}
	if r.Scan != nil {
		doc.Inputs = inputsDocument(r.Scan)
	}
	return doc
}

// ranksDoc is the document of recomp ranks: whether the ranks agree, then each rank's first
// divergence with its cause, the groups, the ranks that compiled what the others got from the
// cache, the compile-start skew, and one row per rank.
func ranksDoc(r *explain.Ranks) *Document {
	p := &Document{Title: "recomp ranks", Headline: RanksHeadline(r)}
	p.Status, p.Tone = "CONSISTENT", "ok"
	switch {
	case r.Departed():
		p.Status, p.Tone = "DIVERGED", "bad"
	case len(r.WithoutEvidence()) > 0 || len(r.Split) > 0:
		p.Status, p.Tone = "INCONCLUSIVE", "warn"
	}
	p.Totals = []Total{{Label: "ranks", Value: fmt.Sprint(len(r.Ranks))}, {Label: "groups", Value: fmt.Sprint(len(r.Groups)), Bad: len(r.Groups) > 1},
		{Label: "diverged", Value: fmt.Sprint(len(r.Divergences)), Bad: len(r.Divergences) > 0},
		{Label: "cache misses", Value: fmt.Sprint(len(r.CacheMisses)), Bad: len(r.CacheMisses) > 0}}
	if s := r.Skew; s != nil {
		p.Totals = append(p.Totals, Total{Label: "compile-start skew", Value: dur(s.Spread)})
	}
	for _, n := range r.SplitNotes {
		p.Answer = append(p.Answer, Answer{Tone: "warn", Text: n})
	}
	p.Answer = append(p.Answer, rankAnswers(r)...)
	p.Sections = ranksSections(r, &p.Omitted)
	return p
}

// rankAnswers are one line per rank that departed: where (request, step), what (program,
// compiled or served), why (the cause) and the user's line.
func rankAnswers(r *explain.Ranks) []Answer {
	var out []Answer
	for i, d := range r.Divergences {
		if i == maxAnswers {
			out = append(out, Answer{Tone: "bad", Text: fmt.Sprintf("%d more ranks departed (listed below)", len(r.Divergences)-i)})
			break
		}
		a := Answer{Tone: "bad", Text: fmt.Sprintf("rank %s departed at request %d%s: %s of %s%s", d.Rank, d.Index, divergenceStepText(d), d.Kind, d.Program, divergenceWhat(d))}
		if c := d.Cause; c != nil {
			a.Text += ": " + c.Summary
			a.Action = c.Advice
		}
		if d.Site != "" {
			a.Text += " at " + d.Site
		}
		out = append(out, a)
	}
	return out
}

// sections are the ranks' details, for recomp ranks and guard --ranks-consistent.
func ranksSections(r *explain.Ranks, omitted *[]string) []Section {
	var out []Section
	if len(r.Divergences) > 0 {
		sec := Section{ID: "divergences", Title: "Where each rank departed"}
		for i, d := range r.Divergences {
			if i == maxCards {
				*omitted = append(*omitted, fmt.Sprintf("%d more divergences (--format json lists them all)", len(r.Divergences)-i))
				break
			}
			c := Card{Title: fmt.Sprintf("rank %s, request %d%s: %s of %s%s", d.Rank, d.Index, divergenceStepText(d), d.Kind, d.Program, divergenceWhat(d)),
				Severity: "error", Lines: []string{d.Summary}}
			if d.File != "" {
				c.Lines = append(c.Lines, fmt.Sprintf("%s:%d", d.File, d.Line))
			}
			if d.Args != "" || d.MajorityArgs != "" {
				c.Lines = append(c.Lines, fmt.Sprintf("arguments %s; the %s's %s", nonEmpty(d.Args, "-"), r.Reference(), nonEmpty(d.MajorityArgs, "-")))
			}
			if cs := d.Cause; cs != nil {
				c.Causes = append(c.Causes, CardCause{Kind: causeKindLabel(cs.Kind), Summary: cs.Summary + " (from the " + d.CauseFrom + ")",
					Evidence: groupEvidence(cs.Evidence), Advice: cs.Advice})
			}
			if d.Pair != nil {
				c.Lines = append(c.Lines, "dumps: "+d.Pair.A.Path+" → "+d.Pair.B.Path)
			}
			sec.Cards = append(sec.Cards, c)
		}
		out = append(out, sec)
	}
	gt := newTable([]bool{false, false, true, false}, "group", "ranks", "requests", "digest")
	for i, g := range r.Groups {
		name := strconv.Itoa(i + 1)
		if g.Majority {
			name += " (" + r.Reference() + ")"
		}
		gt.add(!g.Majority, name, explain.RankRanges(g.Ranks), strconv.Itoa(g.Requests), g.Digest)
	}
	out = append(out, Section{ID: "groups", Title: "Groups of ranks that made the same requests", Table: gt})
	var items []string
	for i, m := range r.CacheMisses {
		if i == maxRows {
			*omitted = append(*omitted, fmt.Sprintf("%d more cache misses (--format json lists them all)", len(r.CacheMisses)-i))
			break
		}
		items = append(items, fmt.Sprintf("rank %s compiled %s (%s:%d) where the %s got it from the cache", m.Rank, m.Program, m.File, m.Line, r.Reference()))
	}
	if s := r.Skew; s != nil {
		items = append(items, "compile-start skew: "+skewText(s))
	}
	for _, w := range r.Warnings {
		items = append(items, "warning: "+w)
	}
	if len(items) > 0 {
		out = append(out, Section{ID: "rank-misses", Title: "Cache misses, skew and warnings", Items: items})
	}
	rt := newTable([]bool{false, false, false, true, true, true, true, false}, "rank", "named by", "given as", "group", "requests", "compiled", "compile time", "diverged")
	for i, ri := range r.Ranks {
		if i == maxRows {
			*omitted = append(*omitted, fmt.Sprintf("%d more ranks (--format json lists them all)", len(r.Ranks)-i))
			break
		}
		div := "-"
		if d := ri.Divergence; d != nil {
			div = fmt.Sprintf("request %d%s: %s", d.Index, divergenceStepText(d), d.Kind)
		}
		rt.add(ri.Divergence != nil, ri.Rank, ri.RankFrom, ri.Name, strconv.Itoa(ri.Group+1), strconv.Itoa(ri.Sequence.Count), strconv.Itoa(ri.Compilations),
			dur(ri.CompileTime), div)
	}
	out = append(out, Section{ID: "ranks", Title: "Ranks", Table: rt, Detail: len(r.Ranks) > maxTextRanks})
	return out
}
