package report

import (
	"fmt"
	"strconv"

	"github.com/recomp/recomp/across"
)

// What guard --covered-by and guard --ranks-consistent add to the guard report, in every
// format: the coverage of the run time by its warm-up (covered, uncovered with the nearest
// warm-up variant and the cause, variants not seen used), and the ranks' agreement.

// CoverageHeadline says in one line how well the warm-up covered the run time.
func CoverageHeadline(c *across.Coverage) string {
	s := fmt.Sprintf("the warm-up (%s) compiled %s (told apart by %s); they cover %d of %d run-time compilation(s)", c.Warmup,
		plural(len(c.Variants), "variant", "variants"), byWords[c.By], c.Covered, c.Runtime)
	if c.Runtime > 0 {
		s += fmt.Sprintf(" (%.0f%%)", 100*float64(c.Covered)/float64(c.Runtime))
	}
	if n := len(c.Uncovered); n > 0 {
		s += fmt.Sprintf("; %d uncovered", n)
	}
	if c.Unmatched > 0 {
		s += fmt.Sprintf("; %d unmatched (no signature or hash to compare)", c.Unmatched)
	}
	if n := len(c.Unused()); n > 0 {
		if c.UseKnown {
			s += fmt.Sprintf("; %s never used", plural(n, "variant", "variants"))
		} else {
			s += fmt.Sprintf("; %s not seen used", plural(n, "variant", "variants"))
		}
	}
	return s
}

var byWords = map[string]string{"signature": "argument signature", "hash": "graph hash", "program": "neither signature nor hash"}

func uncoveredStepText(u *across.Uncovered) string {
	if u.Step < 0 {
		return ""
	}
	return fmt.Sprintf(" (step %d)", u.Step)
}

func requestLabel(v *across.Request) string {
	if v.Args != "" {
		return v.Program + " " + v.Args
	}
	if v.Hash != "" {
		return v.Program + " (hash " + v.Hash + ")"
	}
	return v.Program
}

// CoverageJSON is the coverage object of guard --covered-by.
type CoverageJSON struct {
	Warmup    string          `json:"warmup"`
	Marker    string          `json:"marker"`
	By        string          `json:"by"`
	Runtime   int             `json:"runtime_compilations"`
	Covered   int             `json:"covered"`
	Ratio     float64         `json:"coverage"`
	Uncovered []UncoveredJSON `json:"uncovered"`
	Unmatched int             `json:"unmatched"`
	// UnmatchedPrograms names the programs of the unmatched compilations.
	UnmatchedPrograms []string      `json:"unmatched_programs"`
	Variants          []VariantJSON `json:"variants"`
	Unused            int           `json:"unused_variants"`
	UseKnown          bool          `json:"use_known"`
	Notes             []string      `json:"notes"`
}

// RequestJSON is a compile request's program, arguments and line (its fields are those of the
// objects it is embedded in).
type RequestJSON struct {
	Program   string `json:"program"`
	Module    string `json:"module"`
	Signature string `json:"signature,omitempty"`
	Args      string `json:"args,omitempty"`
	Hash      string `json:"hash,omitempty"`
	File      string `json:"file"`
	Line      int    `json:"line"`
}

type UncoveredJSON struct {
	RequestJSON
	Step    *int         `json:"step"`
	Seconds float64      `json:"seconds"`
	Nearest *VariantJSON `json:"nearest"`
	PadTo   bool         `json:"pad_to"`
	Cause   *CauseJSON   `json:"cause,omitempty"`
	Summary string       `json:"summary"`
}

type VariantJSON struct {
	RequestJSON
	Uses int `json:"uses"`
}

func variantDocument(v *across.WarmupVariant) VariantJSON {
	return VariantJSON{RequestJSON: RequestJSON(v.Request), Uses: v.Uses}
}

// CoverageDocument is the JSON of a coverage.
func CoverageDocument(c *across.Coverage) *CoverageJSON {
	doc := &CoverageJSON{Warmup: c.Warmup, Marker: c.Marker, By: c.By, Runtime: c.Runtime, Covered: c.Covered, Uncovered: []UncoveredJSON{},
		Variants: []VariantJSON{}, Unused: len(c.Unused()), UseKnown: c.UseKnown, Notes: nonNil(c.Notes), Ratio: 1,
		Unmatched: c.Unmatched, UnmatchedPrograms: nonNil(c.UnmatchedPrograms)}
	if c.Runtime > 0 {
		doc.Ratio = float64(c.Covered) / float64(c.Runtime)
	}
	for _, v := range c.Variants {
		doc.Variants = append(doc.Variants, variantDocument(v))
	}
	for _, u := range c.Uncovered {
		uj := UncoveredJSON{RequestJSON: RequestJSON(u.Request), Step: stepRef(u.Step), Seconds: seconds(u.Duration), PadTo: u.PadTo, Cause: causeRef(u.Cause), Summary: u.Summary}
		if u.Nearest != nil {
			v := variantDocument(u.Nearest)
			uj.Nearest = &v
		}
		doc.Uncovered = append(doc.Uncovered, uj)
	}
	return doc
}

// guardExtrasDocument adds coverage and ranks to guard's document.
func guardExtrasDocument(doc *ScanJSON, g *across.Guard) {
	if g.Coverage != nil {
		doc.Coverage = CoverageDocument(g.Coverage)
	}
	if g.Ranks != nil {
		r := RanksDocument(g.Ranks)
		doc.Ranks = &r
	}
}

// coverageSection is the run time held against its warm-up: each uncovered compilation with the
// nearest warm-up variant and the cause, then the variants and how often each was seen used.
func coverageSection(c *across.Coverage) Section {
	sec := Section{ID: "coverage", Title: "Coverage by the warm-up", Note: CoverageHeadline(c)}
	if c.Marker != "" {
		sec.Note += fmt.Sprintf("; the warm-up ends at the first line matching %q", c.Marker)
	}
	for i, u := range c.Uncovered {
		if i == maxCards {
			break
		}
		card := Card{Title: fmt.Sprintf("uncovered %s:%d%s: %s", u.File, u.Line, uncoveredStepText(u), u.Program), Severity: "error",
			Lines: []string{"arguments " + nonEmpty(u.Args, nonEmpty(u.Hash, "-"))}}
		if u.Nearest != nil {
			rel := ""
			if u.PadTo {
				rel = ", one the inputs can be padded to"
			}
			card.Lines = append(card.Lines, fmt.Sprintf("nearest warm-up variant%s: %s (%s:%d)", rel, requestLabel(&u.Nearest.Request), u.Nearest.File, u.Nearest.Line))
		}
		if cs := u.Cause; cs != nil {
			card.Causes = append(card.Causes, CardCause{Kind: causeKindLabel(cs.Kind), Summary: u.Summary, Evidence: groupEvidence(cs.Evidence)})
		} else if u.Summary != "" {
			card.Lines = append(card.Lines, u.Summary)
		}
		sec.Cards = append(sec.Cards, card)
	}
	word := "uses seen"
	if c.UseKnown {
		word = "uses"
	}
	t := newTable([]bool{false, false, true}, "warm-up variant", "where", word)
	for i, v := range c.Variants {
		if i == maxRows {
			break
		}
		t.add(v.Uses == 0 && c.UseKnown, requestLabel(&v.Request), fmt.Sprintf("%s:%d", v.File, v.Line), strconv.Itoa(v.Uses))
	}
	sec.Table = t
	for _, n := range c.Notes {
		sec.Items = append(sec.Items, "note: "+n)
	}
	return sec
}
