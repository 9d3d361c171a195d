package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// recomp ranks in every format: a headline (how many ranks, how many groups, who departed),
// the groups, each rank's first divergence with its cause, the ranks that compiled what the
// others got from the cache, the compile-start skew, and (JSON) one object per rank: the unit a
// log pipeline ingests.

// maxTextRanks bounds the ranks the text and Markdown formats list one by one.
const maxTextRanks = 64

func (r *Ranks) render(w io.Writer, f Format, st Style) error {
	switch f {
	case Text:
		return r.text(w, painter{st.Color})
	case JSON:
		return writeJSON(w, RanksDocument(r))
	case Markdown:
		return r.markdown(w)
	case HTML:
		return r.html(w, st.Meta)
	}
	return fmt.Errorf("recomp ranks cannot write %s", f)
}

// RanksHeadline says in one line whether the ranks agree.
func (r *Ranks) RanksHeadline() string {
	s := fmt.Sprintf("%s, %s", plural(len(r.Ranks), "rank", "ranks"), plural(len(r.Groups), "group", "groups"))
	if r.Consistent() {
		return s + ": every rank made the same compile requests"
	}
	var who []string
	for _, d := range r.Divergences {
		who = append(who, d.Rank)
	}
	return s + ": " + plural(len(who), "rank", "ranks") + " departed from the " + r.Reference() + " (" + RankRanges(who) + ")"
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

func (d *Divergence) stepText() string {
	if d.Step < 0 {
		return ""
	}
	return fmt.Sprintf(", step %d", d.Step)
}

func (d *Divergence) what() string {
	if d.Kind == DivergeMissing || d.Kind == DivergeLater {
		return ""
	}
	if d.Compiled {
		return " (compiled)"
	}
	return " (served from the cache)"
}

func (r *Ranks) text(w io.Writer, p painter) error {
	fmt.Fprintf(w, "%s: %s\n", p.bold("recomp ranks"), r.RanksHeadline())
	for i, g := range r.Groups {
		label := ""
		if g.Majority {
			label = r.Reference() + ", "
		}
		fmt.Fprintf(w, "  group %d (%s%s: %s): %s, digest %s\n", i+1, label, plural(len(g.Ranks), "rank", "ranks"), RankRanges(g.Ranks),
			plural(g.Requests, "request", "requests"), g.Digest)
	}
	if len(r.Divergences) > 0 {
		fmt.Fprintln(w, "\nfirst divergences:")
	}
	for i, d := range r.Divergences {
		if i == maxTextRanks {
			fmt.Fprintf(w, "  … %d more (--format json lists them all)\n", len(r.Divergences)-i)
			break
		}
		fmt.Fprintf(w, "  rank %s, request %d%s: %s of %s%s\n", d.Rank, d.Index, d.stepText(), p.bold(string(d.Kind)), d.Program, d.what())
		if d.File != "" {
			fmt.Fprintf(w, "    %s:%d\n", d.File, d.Line)
		}
		if d.Args != "" || d.MajorityArgs != "" {
			fmt.Fprintf(w, "    arguments %s; the %s's %s\n", nonEmpty(d.Args, "-"), r.Reference(), nonEmpty(d.MajorityArgs, "-"))
		}
		fmt.Fprintf(w, "    %s\n", d.Summary)
		if c := d.Cause; c != nil {
			fmt.Fprintf(w, "    %s (from the %s): %s\n", causeLabel(c.Kind), d.CauseFrom, c.Summary)
			for _, ev := range c.Evidence[:min(len(c.Evidence), 4)] {
				fmt.Fprintf(w, "        %s\n", ev)
			}
			if c.Advice != "" {
				fmt.Fprintf(w, "    advice: %s\n", c.Advice)
			}
		}
		if d.Pair != nil {
			fmt.Fprintf(w, "    dumps: %s → %s\n", d.Pair.A.Path, d.Pair.B.Path)
		}
	}
	if len(r.CacheMisses) > 0 {
		fmt.Fprintf(w, "\ncompiled what the %s got from the cache:\n", r.Reference())
		for i, m := range r.CacheMisses {
			if i == maxTextRanks {
				fmt.Fprintf(w, "  … %d more\n", len(r.CacheMisses)-i)
				break
			}
			fmt.Fprintf(w, "  rank %s: %s (%s:%d)\n", m.Rank, m.Program, m.File, m.Line)
		}
	}
	if s := r.Skew; s != nil {
		fmt.Fprintf(w, "\ncompile-start skew: %s\n", s.text())
	}
	if len(r.Ranks) <= maxTextRanks {
		t := &table{right: []bool{false, false, true, true, true, true, false}}
		t.add("RANK", "LOG", "GROUP", "REQUESTS", "COMPILED", "TIME", "DIVERGED")
		for _, ri := range r.Ranks {
			div := "-"
			if d := ri.Divergence; d != nil {
				div = fmt.Sprintf("request %d%s: %s", d.Index, d.stepText(), d.Kind)
			}
			t.add(ri.Rank, ri.Process, strconv.Itoa(ri.Group+1), strconv.Itoa(ri.Sequence.Count), strconv.Itoa(ri.Compilations),
				dur(ri.CompileTime), div)
		}
		fmt.Fprintln(w)
		t.write(w, "")
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", wn)
	}
	return nil
}

func (s *Skew) text() string {
	if s.Spread == 0 {
		return fmt.Sprintf("none: the %d ranks with a clock started each compilation they share at the same time (largest spread 0ms)", s.RanksWithClock)
	}
	return fmt.Sprintf("%s at request %d (%s): rank %s started first, rank %s last (%d ranks with a clock)",
		dur(s.Spread), s.Index, s.Program, s.Earliest, s.Latest, s.RanksWithClock)
}

// RanksJSON is the document of recomp ranks (and the ranks object of guard --ranks-consistent).
type RanksJSON struct {
	Version     int              `json:"version"`
	Consistent  bool             `json:"consistent"`
	Ranks       []RankJSON       `json:"ranks"`
	Groups      []RankGroupJSON  `json:"groups"`
	Divergences []DivergenceJSON `json:"divergences"`
	CacheMisses []RankMissJSON   `json:"cache_misses"`
	Skew        *SkewJSON        `json:"skew"`
	Inputs      []InputJSON      `json:"inputs"`
	Warnings    []string         `json:"warnings"`
}

// RankJSON is one rank: what a log pipeline ingests per rank (jq -c '.ranks[]').
type RankJSON struct {
	Rank           string          `json:"rank"`
	RankFrom       string          `json:"rank_from"`
	Process        string          `json:"process"`
	Log            string          `json:"log"`
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

func divergenceDocument(d *Divergence) *DivergenceJSON {
	if d == nil {
		return nil
	}
	dj := &DivergenceJSON{Rank: d.Rank, Kind: string(d.Kind), Request: d.Index, Program: d.Program, Module: d.Module, Variant: d.Variant,
		MajorityVariant: d.Majority, Args: d.Args, MajorityArgs: d.MajorityArgs, Compiled: d.Compiled, File: d.File, Line: d.Line,
		Summary: d.Summary, CauseFrom: d.CauseFrom}
	if d.Step >= 0 {
		s := d.Step
		dj.Step = &s
	}
	if c := d.Cause; c != nil {
		dj.Cause = &CauseJSON{Kind: string(c.Kind), Summary: c.Summary, Evidence: nonNil(c.Evidence), Advice: c.Advice}
	}
	if d.Pair != nil {
		p := pairDocument(d.Pair)
		dj.Pair = &p
	}
	return dj
}

// RanksDocument is the JSON document of recomp ranks.
func RanksDocument(r *Ranks) RanksJSON {
	doc := RanksJSON{Version: JSONVersion, Consistent: r.Consistent(), Ranks: []RankJSON{}, Groups: []RankGroupJSON{},
		Divergences: []DivergenceJSON{}, CacheMisses: []RankMissJSON{}, Inputs: []InputJSON{}, Warnings: nonNil(r.Warnings)}
	for _, ri := range r.Ranks {
		rj := RankJSON{Rank: ri.Rank, RankFrom: ri.RankFrom, Process: ri.Process, Log: ri.Log, Group: ri.Group + 1,
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
		doc.Inputs = ScanDocument(r.Scan).Inputs
	}
	return doc
}

func (r *Ranks) markdown(w io.Writer) error {
	fmt.Fprintf(w, "## recomp ranks\n\n%s.\n\n| group | ranks | requests | digest |\n|---|---|---:|---|\n", mdEscape(r.RanksHeadline()))
	for i, g := range r.Groups {
		name := strconv.Itoa(i + 1)
		if g.Majority {
			name += " (" + r.Reference() + ")"
		}
		fmt.Fprintf(w, "| %s | %s | %d | `%s` |\n", name, mdEscape(RankRanges(g.Ranks)), g.Requests, g.Digest)
	}
	fmt.Fprintln(w)
	if len(r.Divergences) > 0 {
		fmt.Fprintf(w, "| rank | request | step | kind | program | cause | where |\n|---|---:|---:|---|---|---|---|\n")
		for i, d := range r.Divergences {
			if i == maxTextRanks {
				fmt.Fprintf(w, "\n%d more (--format json lists them all)\n", len(r.Divergences)-i)
				break
			}
			step, cause := "-", "-"
			if d.Step >= 0 {
				step = strconv.Itoa(d.Step)
			}
			if d.Cause != nil {
				cause = string(d.Cause.Kind) + ": " + d.Cause.Summary
			}
			fmt.Fprintf(w, "| %s | %d | %s | %s | `%s` | %s | `%s:%d` |\n", d.Rank, d.Index, step, d.Kind, mdEscape(d.Program), mdEscape(cause),
				mdEscape(d.File), d.Line)
		}
		fmt.Fprintln(w)
	}
	for _, m := range r.CacheMisses {
		fmt.Fprintf(w, "- rank %s compiled `%s` (`%s:%d`) where the %s got it from the cache\n", m.Rank, mdEscape(m.Program), mdEscape(m.File), m.Line, r.Reference())
	}
	if s := r.Skew; s != nil {
		fmt.Fprintf(w, "\nCompile-start skew: %s.\n", mdEscape(s.text()))
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(w, "- warning: %s\n", mdEscape(wn))
	}
	return nil
}

func (r *Ranks) html(w io.Writer, meta Meta) error {
	p := &htmlPage{Title: "recomp ranks", Meta: meta, Headline: r.RanksHeadline()}
	p.Verdict, p.Class = "CONSISTENT", "ok"
	if !r.Consistent() {
		p.Verdict, p.Class = "DIVERGED", "bad"
	}
	p.Totals = []htmlTotal{{Label: "ranks", Value: fmt.Sprint(len(r.Ranks))}, {Label: "groups", Value: fmt.Sprint(len(r.Groups)), Bad: len(r.Groups) > 1},
		{Label: "diverged", Value: fmt.Sprint(len(r.Divergences)), Bad: len(r.Divergences) > 0},
		{Label: "cache misses", Value: fmt.Sprint(len(r.CacheMisses)), Bad: len(r.CacheMisses) > 0}}
	if s := r.Skew; s != nil {
		p.Totals = append(p.Totals, htmlTotal{Label: "compile-start skew", Value: dur(s.Spread)})
	}
	gt := newTable([]bool{false, false, true, false}, "group", "ranks", "requests", "digest")
	for i, g := range r.Groups {
		name := strconv.Itoa(i + 1)
		if g.Majority {
			name += " (" + r.Reference() + ")"
		}
		gt.add(!g.Majority, name, RankRanges(g.Ranks), strconv.Itoa(g.Requests), g.Digest)
	}
	p.Sections = append(p.Sections, htmlSection{ID: "groups", Title: "Groups of ranks that made the same requests", Table: gt})
	if len(r.Divergences) > 0 {
		sec := htmlSection{ID: "divergences", Title: "Where each rank departed"}
		for i, d := range r.Divergences {
			if i == htmlMaxCards {
				p.Omitted = append(p.Omitted, fmt.Sprintf("%d more divergences (--format json lists them all)", len(r.Divergences)-i))
				break
			}
			c := htmlCard{Title: fmt.Sprintf("rank %s, request %d%s: %s of %s%s", d.Rank, d.Index, d.stepText(), d.Kind, d.Program, d.what()),
				Severity: "error", Lines: []string{d.Summary}}
			if d.File != "" {
				c.Lines = append(c.Lines, fmt.Sprintf("%s:%d", d.File, d.Line))
			}
			if d.Args != "" || d.MajorityArgs != "" {
				c.Lines = append(c.Lines, fmt.Sprintf("arguments %s; the %s's %s", nonEmpty(d.Args, "-"), r.Reference(), nonEmpty(d.MajorityArgs, "-")))
			}
			if cs := d.Cause; cs != nil {
				c.Causes = append(c.Causes, htmlCause{Kind: string(cs.Kind), Summary: cs.Summary + " (from the " + d.CauseFrom + ")", Evidence: cs.Evidence, Advice: cs.Advice})
			}
			if d.Pair != nil {
				c.Lines = append(c.Lines, "dumps: "+d.Pair.A.Path+" → "+d.Pair.B.Path)
			}
			sec.Cards = append(sec.Cards, c)
		}
		p.Sections = append(p.Sections, sec)
	}
	rt := newTable([]bool{false, false, true, true, true, true, false}, "rank", "log", "group", "requests", "compiled", "compile time", "diverged")
	for i, ri := range r.Ranks {
		if i == htmlMaxRows {
			p.Omitted = append(p.Omitted, fmt.Sprintf("%d more ranks (--format json lists them all)", len(r.Ranks)-i))
			break
		}
		div := "-"
		if d := ri.Divergence; d != nil {
			div = fmt.Sprintf("request %d%s: %s", d.Index, d.stepText(), d.Kind)
		}
		rt.add(ri.Divergence != nil, ri.Rank, ri.Process, strconv.Itoa(ri.Group+1), strconv.Itoa(ri.Sequence.Count), strconv.Itoa(ri.Compilations),
			dur(ri.CompileTime), div)
	}
	p.Sections = append(p.Sections, htmlSection{ID: "ranks", Title: "Ranks", Table: rt})
	var items []string
	for _, m := range r.CacheMisses {
		items = append(items, fmt.Sprintf("rank %s compiled %s (%s:%d) where the %s got it from the cache", m.Rank, m.Program, m.File, m.Line, r.Reference()))
	}
	items = append(items, r.Warnings...)
	if len(items) > 0 {
		p.Sections = append(p.Sections, htmlSection{ID: "other", Title: "Cache misses and warnings", Items: items})
	}
	return writePage(w, p)
}
