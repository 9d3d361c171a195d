package explain

import (
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/runfolder"
)

// LiveSites gives compilations the program's own line that the probe recorded, where their log
// named none: TF's traces of a tf.function, the Keras fit, evaluate or predict they ran under —
// what recomp run's live lines say while the run goes on, joined as the report at the end joins
// them (by function name and time). Records joined in order (JAX's) wait for the report: the
// live units are not all the run's.
func LiveSites(units []*ledger.Unit, recs []runfolder.ProbeRecord) {
	attach(units, recs, framework.AttachLastTrace, framework.AttachCallSpan)
}

// LiveCompiles gives compilations of a stack whose probe records each one (torch.compile) what
// the report at the end gives them (attachCompiles: the line that called the frame, autograd
// off), and names a frame of torch's own that torch.compile of a Module compiled as the report
// names it from the trace: by the program's line that first called it.
func LiveCompiles(units []*ledger.Unit, recs []runfolder.ProbeRecord) {
	attachCompiles(units, recs)
	for _, p := range frameworks.Probes() {
		if !p.Compiles || p.Attach != 0 {
			continue // joined by its own way (JAX's, in order of the requests)
		}
		idx := indexCompiles(p, recs)
		for _, u := range units {
			if !u.Compiled || u.Seq < 1 || !ofUnit(u, p) {
				continue
			}
			if r := idx.nth(u); r != nil && r.Code != "" && frameworks.SameFunction(moduleName(p, r.Code), u.Module) {
				u.Family = moduleName(p, r.Name)
			}
		}
	}
}

// logResolution is how finely a log stamps its lines (Python logging: milliseconds, cut, not
// rounded): a probe record of the same millisecond as a compilation's line may be stamped after
// it though it was written before.
const logResolution = time.Millisecond

// LiveStatics gives a compilation the static arguments the probe saw its function traced with
// last (JAX's static_argnums and static_argnames), before the compilation's line when the log
// dates it, and returns the static arguments of each of that function's traces up to it, in
// order (nil when the probe saw none): what recomp run's live line names, as the report at the
// end does (which joins the records in order, once the whole log is read).
func LiveStatics(u *ledger.Unit, recs []runfolder.ProbeRecord) [][]ledger.StaticArg {
	var seen [][]ledger.StaticArg
	for _, p := range frameworks.Probes() {
		if p.Traces == "" || !ofUnit(u, p) {
			continue
		}
		for _, r := range recs {
			if r.Framework != p.Name || r.Event != p.Traces || r.Name == "" || len(r.Static) == 0 ||
				u.PID != 0 && r.PID != u.PID || u.DateKnown && r.Time().After(u.Begin.Add(logResolution)) ||
				!frameworks.SameFunction(moduleName(p, r.Name), u.Module) {
				continue
			}
			var args []ledger.StaticArg
			for _, a := range r.Static {
				args = append(args, ledger.StaticArg{Name: a.Name, Value: a.Value})
			}
			seen = append(seen, args)
		}
	}
	if len(seen) > 0 {
		u.Static = seen[len(seen)-1]
	}
	return seen
}
