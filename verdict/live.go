package verdict

import (
	"github.com/recomp/recomp/frameworks/cause"
	"github.com/recomp/recomp/ledger"
)

// Reason reads a framework's explanation of one compilation (ledger.Unit.Why): the cause kind
// it shows ("" when only the framework's words say it) and what changed, old → new, as the
// verdict's causes say it — what a live line says the moment the compilation happens.
func Reason(why string) (kind cause.Kind, change string) { return reasonCause(why) }

// Cost is what a compilation cost: the stages before the compiler's (tracing, lowering) and
// the compiler's own.
func Cost(u *ledger.Unit) float64 { return cost(u).Seconds() }
