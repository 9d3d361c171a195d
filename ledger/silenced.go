package ledger

import "fmt"

// Silenced is a stack whose log holds no record of its compilations (its compile logging was
// off) and what stood for them: the probe's records, one compilation each, read into the
// ledger as the log's lines would have been (ReadOptions' Log.Supplement).
type Silenced struct {
	// Stack names the stack as a sentence does ("JAX").
	Stack string
	// Setting is the user's own setting that switched the logging off ("JAX_LOG_COMPILES=0"),
	// "" when not known.
	Setting string
	// Records counts the probe's compile records that stood for the log's lines.
	Records int
	// Dumped says the run's dump was compared as well.
	Dumped bool
}

// String says how the stack was judged, in one sentence.
func (s Silenced) String() string {
	what := fmt.Sprintf("the probe's %d compile record(s)", s.Records)
	if s.Dumped {
		what += " and the dump"
	}
	if s.Setting != "" {
		return fmt.Sprintf("%s's compile logging was off (%s, set by you): judged on %s", s.Stack, s.Setting, what)
	}
	return fmt.Sprintf("%s's log holds no record of its compilations (its compile logging was off): judged on %s", s.Stack, what)
}

// JudgedElsewhere records that a stack's compilations are the probe's records of them, with a
// finding that says so.
func (r *Report) JudgedElsewhere(s Silenced) {
	r.Silenced = append(r.Silenced, s)
	r.Findings = append(r.Findings, Finding{Severity: SeverityInfo, Kind: FindingLoggingOff, Message: s.String(),
		Advice: "recomp run's probe recorded each compilation as it happened; turn the stack's compile logging on to have its own words (and reasons) in the log"})
}
