package diff

import (
	"fmt"

	"github.com/recomp/recomp/hlo"
)

// maxShownLiteral is the longest constant literal a change, an evidence line or a text diff
// carries as it is. A longer one is summarised (hlo.LiteralSummary: its first elements, how
// many, its size and a digest): a report never repeats a 100 MB constant.
const maxShownLiteral = 256

// shownLiteral is a literal as a report shows it.
func shownLiteral(lit string) string {
	if len(lit) <= maxShownLiteral {
		return lit
	}
	return hlo.LiteralSummary(lit)
}

// constantValues are the old and new values of a constant that changed: the literals when
// both are short, else their summaries and where they first differ.
func constantValues(a, b string, d hlo.LiteralDiff) (string, string) {
	if len(a) <= maxShownLiteral && len(b) <= maxShownLiteral {
		return a, b
	}
	oa, ob := hlo.LiteralSummary(a), hlo.LiteralSummary(b)
	if d.Differ > 0 {
		oa += fmt.Sprintf("; [%d] = %s (%d of the elements compared differ)", d.First, d.Old, d.Differ)
		ob += fmt.Sprintf("; [%d] = %s", d.First, d.New)
	}
	return oa, ob
}
