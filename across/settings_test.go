package across

import (
	"testing"

	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/ledger"
)

// GuardSettings.Options refuses settings that exclude each other, naming the options by their
// own names (no flag's dashes: the command line adds them).
func TestGuardSettings(t *testing.T) {
	logs := []string{"run.log"}
	for _, c := range []struct {
		s    GuardSettings
		want string
	}{
		{GuardSettings{Logs: logs, Gate: gate.Options{MaxRecompiles: -1}}, "max-recompiles -1: want a number >= 0"},
		{GuardSettings{Logs: logs, Read: ledger.ReadSettings{Warmup: -2}}, "warmup -2: want a number >= 0"},
		{GuardSettings{Logs: logs, Read: ledger.ReadSettings{Warmup: 1, After: "x"}}, "warmup and after are exclusive: choose one warm-up boundary"},
		{GuardSettings{Logs: logs, Baseline: "b", WriteBaseline: "w"}, "baseline reads a baseline and write-baseline writes one: choose one"},
		{GuardSettings{Logs: logs, Baseline: "b", Read: ledger.ReadSettings{After: "x"}}, "baseline replaces warmup and after: choose one"},
		{GuardSettings{CoveredBy: "w", Read: ledger.ReadSettings{Warmup: 1}}, "covered-by replaces baseline, write-baseline and warmup: the warm-up is the log it names"},
		{GuardSettings{}, "expected at least one log"},
		{GuardSettings{Logs: logs, RanksConsistent: true, Ranks: explain.RankSettings{Step: "step"}}, `step "step": want a group around the step number, e.g. 'step (\d+)'`},
	} {
		if _, err := c.s.Options(); err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v, want %q", c.s, err, c.want)
		}
	}
	opt, err := GuardSettings{CoveredBy: "w.log", Read: ledger.ReadSettings{After: "Epoch 2/"}}.Options()
	if err != nil || opt.Read.Marker == nil || opt.After != "Epoch 2/" || opt.CoveredBy != "w.log" || opt.Ranks != nil {
		t.Errorf("--covered-by with --after: %+v, %v", opt, err)
	}
}
