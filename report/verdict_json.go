package report

import (
	"io"

	"github.com/recomp/recomp/across"
	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/verdict"
)

// VerdictJSON is what the run's compilations come to (docs/json.md, "verdict").
type VerdictJSON struct {
	// Headline is what compiling cost in one line, the text report's own (verdict's words).
	Headline            string               `json:"headline"`
	WallSeconds         float64              `json:"wall_seconds"`
	CompileSeconds      float64              `json:"compile_seconds"`
	RecompileSeconds    float64              `json:"recompile_seconds"`
	AfterWarmupSeconds  float64              `json:"after_warmup_seconds"`
	CompileFraction     float64              `json:"compile_fraction"`
	Programs            []ProgramVerdictJSON `json:"programs"`
	CallSites           []CallSiteJSON       `json:"call_sites"`
	UnattributedSeconds float64              `json:"unattributed_seconds"`
	Processes           int                  `json:"processes"`
	SlowestSeconds      float64              `json:"slowest_seconds"`
	SlowestProcess      string               `json:"slowest_process"`
}

type ProgramVerdictJSON struct {
	Program string `json:"program"`
	// Summary is the program's answer line as every format says it (verdict's words): how often,
	// the cost, the causes with old → new and where, whether it recurs.
	Summary string `json:"summary"`
	// Role is the front end's step the program is, as a user reads it ("train step", "test step
	// (evaluate)", "predict step"); "" when nothing says.
	Role string `json:"role"`
	// FrontEnd names the front end whose step it is ("keras"; "" with no role).
	FrontEnd           string             `json:"front_end"`
	Framework          string             `json:"framework"`
	Compilations       int                `json:"compilations"`
	Processes          int                `json:"processes"`
	MostInOne          int                `json:"most_in_one"`
	AfterWarmup        int                `json:"after_warmup"`
	OncePerMode        int                `json:"once_per_mode"`
	Seconds            float64            `json:"seconds"`
	AfterWarmupSeconds float64            `json:"after_warmup_seconds"`
	Share              float64            `json:"share"`
	Causes             []VerdictCauseJSON `json:"causes"`
	Sizes              *SizesJSON         `json:"sizes"`
	Action             string             `json:"action"`
	// Variants and Repeated: the distinct variants compiled and the compilations of a variant
	// compiled before (recurring); both 0 when the log tells no variants apart.
	Variants int `json:"variants"`
	Repeated int `json:"repeated"`
	// Cadence: when it compiled, by its process's steps (null when the log counts none).
	Cadence *CadenceJSON `json:"cadence"`
}

type CadenceJSON struct {
	Steps []int `json:"steps"`
	Of    int   `json:"of"`
	Every int   `json:"every"`
	Quiet int   `json:"quiet"`
	// Epochs (the epoch of each compilation, 1 for the first; [] when nothing marks epochs),
	// EpochsOf (the epochs the process began; 0 when unknown) and EveryEpoch (the compilations in
	// each epoch when it compiled as often in every epoch from its first to the last; 0 otherwise).
	Epochs     []int `json:"epochs"`
	EpochsOf   int   `json:"epochs_of"`
	EveryEpoch int   `json:"every_epoch"`
	// EpochFrom (the epoch it recurs from; 0 when it does not recur every epoch) and EpochSeconds
	// (the compile time of an epoch from it on, on average).
	EpochFrom    int     `json:"epoch_from"`
	EpochSeconds float64 `json:"epoch_seconds"`
	// QuietEpochs: where the log marks epochs and no steps (steps [], of 0), the epochs after its
	// last compilation's when it does not recur every epoch (paid once); 0 otherwise.
	QuietEpochs int `json:"quiet_epochs"`
}

type VerdictCauseJSON struct {
	Kind string `json:"kind"`
	// Label is the kind in the words the rest of the answer uses (verdict.Cause.Label): what
	// a card of the text report heads the cause with.
	Label        string   `json:"label"`
	Change       string   `json:"change"`
	Count        int      `json:"count"`
	Sites        []string `json:"sites"`
	ExpectedOnce bool     `json:"expected_once,omitempty"`
	// FrameworkSaid is the framework's own words that name the cause (a static argument, a
	// pytree change), when only they show it.
	FrameworkSaid string `json:"framework_said,omitempty"`
	// SaidBy names who said it when not the stack itself ("dynamo").
	SaidBy string `json:"said_by,omitempty"`
	// Values are the values a Python value read at trace time took, in order: each static
	// argument that changed (static_argument, from recomp run's probe) or the constants the dump
	// shows (python_value, no name); [] for other causes.
	Values []ValuesJSON `json:"values"`
	// Source is the op line of a number baked into the graph that changed (its values are
	// Values[0], with no name).
	Source string `json:"source,omitempty"`
	// Advice is what to do about this cause, in the words the program's action joins
	// (verdict.Cause.Advice); "" for a cause past the first two whose advice differs.
	Advice string `json:"advice"`
}

// ValuesJSON is the values one Python value took.
type ValuesJSON struct {
	Name string   `json:"name"`
	Seen []string `json:"seen"`
}

type SizesJSON struct {
	What    string     `json:"what"`
	Seen    []int      `json:"seen"`
	Pattern string     `json:"pattern"`
	Counted bool       `json:"counted"`
	Plans   []PlanJSON `json:"plans"`
	Best    int        `json:"best"`
	// Samples and BatchSizes: a Keras call's samples and the batch sizes dividing them.
	Samples    int   `json:"samples,omitempty"`
	BatchSizes []int `json:"batch_sizes,omitempty"`
}

type PlanJSON struct {
	Name            string  `json:"name"`
	Tops            []int   `json:"tops"`
	Compilations    int     `json:"compilations"`
	Waste           int64   `json:"waste"`
	OverheadPercent float64 `json:"overhead_percent"`
}

type CallSiteJSON struct {
	Site         string  `json:"site"`
	Compilations int     `json:"compilations"`
	AfterWarmup  int     `json:"after_warmup"`
	Seconds      float64 `json:"seconds"`
	TopCause     string  `json:"top_cause"`
	Example      string  `json:"example"`
}

// VerdictDocument is the JSON of a verdict (nil for none).
func VerdictDocument(v *verdict.Result) *VerdictJSON {
	if v == nil {
		return nil
	}
	d := &VerdictJSON{Headline: v.Headline(), WallSeconds: seconds(v.Wall), CompileSeconds: seconds(v.Compile), RecompileSeconds: seconds(v.Recompile),
		AfterWarmupSeconds: seconds(v.Late), Programs: []ProgramVerdictJSON{}, CallSites: []CallSiteJSON{},
		UnattributedSeconds: seconds(v.Unattributed), Processes: v.Processes, SlowestSeconds: seconds(v.Slowest), SlowestProcess: v.SlowestProcess}
	switch {
	case v.Wall > 0 && v.Processes > 1:
		d.CompileFraction = round3(v.Slowest.Seconds() / v.Wall.Seconds())
	case v.Wall > 0:
		d.CompileFraction = round3(v.Compile.Seconds() / v.Wall.Seconds())
	}
	for _, p := range v.Verdicts {
		pj := ProgramVerdictJSON{Program: p.Program, Summary: p.Sentence(), Role: p.Role, FrontEnd: p.FrontEnd, Framework: p.Framework, Compilations: p.Compilations, Processes: p.Processes, MostInOne: p.MostInOne, AfterWarmup: p.AfterWarmup, OncePerMode: p.OncePerMode,
			Seconds: seconds(p.Time), AfterWarmupSeconds: seconds(p.LateTime), Share: round3(p.Share), Causes: []VerdictCauseJSON{}, Action: p.Action,
			Variants: p.Variants, Repeated: p.Repeated}
		for _, c := range p.Causes {
			cj := VerdictCauseJSON{Kind: string(c.Kind), Label: c.Label(p.Framework), Change: c.Change, Count: c.Count, Sites: nonNil(c.Sites), ExpectedOnce: c.Once, FrameworkSaid: c.Said, SaidBy: c.SaidBy,
				Values: []ValuesJSON{}, Source: c.Source, Advice: c.Advice}
			for _, vs := range c.Values {
				cj.Values = append(cj.Values, ValuesJSON{Name: vs.Name, Seen: nonNil(vs.Seen)})
			}
			if len(c.Numbers) > 0 {
				cj.Values = append(cj.Values, ValuesJSON{Seen: c.Numbers})
			}
			pj.Causes = append(pj.Causes, cj)
		}
		if c := p.Cadence; c != nil {
			pj.Cadence = &CadenceJSON{Steps: nonNil(c.Steps), Of: c.Of, Every: c.Every, Quiet: c.Quiet,
				Epochs: nonNil(c.Epochs), EpochsOf: c.EpochsOf, EveryEpoch: c.EveryEpoch, EpochFrom: c.EpochFrom, EpochSeconds: seconds(c.EpochCost),
				QuietEpochs: c.QuietEpochs}
		}
		if s := p.Sizes; s != nil {
			sj := &SizesJSON{What: s.What, Seen: nonNil(s.Seen), Pattern: s.Pattern, Counted: s.Counted, Plans: []PlanJSON{}, Best: s.Best,
				Samples: s.Samples, BatchSizes: s.BatchSizes}
			for _, pl := range s.Plans {
				sj.Plans = append(sj.Plans, PlanJSON{Name: pl.Name, Tops: nonNil(pl.Tops), Compilations: pl.Compilations, Waste: pl.Waste,
					OverheadPercent: round3(pl.Overhead)})
			}
			pj.Sizes = sj
		}
		d.Programs = append(d.Programs, pj)
	}
	for _, s := range v.Sites {
		d.CallSites = append(d.CallSites, CallSiteJSON{Site: s.Site, Compilations: s.Compilations, AfterWarmup: s.AfterWarmup,
			Seconds: seconds(s.Time), TopCause: string(s.TopCause), Example: s.Example})
	}
	return d
}

func round3(f float64) float64 {
	return float64(int64(f*1000+0.5)) / 1000
}

// writeJSONReport writes the JSON document of a report.
func writeJSONReport(w io.Writer, r Report) error {
	switch r := r.(type) {
	case *explain.Scan:
		return writeJSON(w, ScanDocument(r))
	case *across.Guard:
		doc := ScanDocument(r.Scan)
		doc.Gate = GateDocument(r.Gate)
		guardExtrasDocument(&doc, r)
		return writeJSON(w, doc)
	case *across.RunsDiff:
		return writeJSON(w, RunsDiffDocument(r))
	case *explain.Ranks:
		return writeJSON(w, RanksDocument(r))
	case *explain.Diff:
		return writeDiffJSON(w, r)
	case *Cache:
		return writeCacheJSON(w, r)
	case *explain.Run:
		doc := RunJSON{Version: JSONVersion, Folder: r.Folder, Manifest: r.Manifest, CompileFraction: r.CompileFraction(), Scan: ScanDocument(r.Scan)}
		if r.Explain != nil {
			d := diffDocument(r.Explain, r.Scan.Verdict)
			doc.Explain = &d
		}
		if r.Gate != nil {
			doc.Gate = GateDocument(r.Gate)
		}
		return writeJSON(w, doc)
	}
	return nil
}
