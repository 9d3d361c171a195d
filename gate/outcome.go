package gate

// Outcome is what an answer comes to, as a command's exit code says it: nothing found,
// something found, or no answer to trust.
type Outcome int

const (
	// Clean: nothing found (equal, the gate passed).
	Clean Outcome = iota
	// Found: something found (a difference, a recompilation, the gate failed).
	Found
	// Inconclusive: no answer to trust (an input unread, no evidence, the gate inconclusive).
	Inconclusive
)

// Outcome is the gate's: inconclusive, failed (Found) or passed (Clean).
func (g *Result) Outcome() Outcome {
	switch {
	case g.Inconclusive:
		return Inconclusive
	case !g.Passed:
		return Found
	}
	return Clean
}
