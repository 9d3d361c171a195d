package across

import (
	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/internal/input"
	"github.com/recomp/recomp/internal/option"
)

// DiffOptions are recomp diff's: its two arguments, the logs and dump folders named beside them,
// and what to compute for each pair.
type DiffOptions struct {
	RunsOptions
	A, B         string
	LogA, LogB   []string
	DumpA, DumpB string
}

// Diff is recomp diff: it opens A and B (OpenSide) and, when either has logs, compares the runs
// (Runs), else their dumps module by module (explain.Dumps). One of the two answers is nil.
func Diff(opt DiffOptions) (*RunsDiff, *explain.Diff, error) {
	a, err := OpenSide(opt.A, opt.LogA, opt.DumpA)
	if err != nil {
		return nil, nil, err
	}
	b, err := OpenSide(opt.B, opt.LogB, opt.DumpB)
	if err != nil {
		return nil, nil, err
	}
	if HasLogs(a) || HasLogs(b) {
		if err := input.CheckStdin(append(append([]string{opt.A, opt.B}, opt.LogA...), opt.LogB...)); err != nil {
			return nil, nil, err
		}
		r, err := Runs(a, b, opt.RunsOptions)
		return r, nil, err
	}
	if len(opt.Caches) > 0 {
		return nil, nil, option.New([]string{"cache", "log-a", "log-b"}, "%[1]s needs the runs' logs (run folders, or %[2]s and %[3]s)")
	}
	d, err := explain.Dumps(a.Dump, b.Dump, opt.Options)
	return nil, d, err
}
