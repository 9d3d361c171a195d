package explain

import (
	"testing"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/ledger"
)

// A run folder whose programs each compiled once has nothing for its dump to explain: scan reads
// its log and parses no HLO. One that compiled again has its dump read, as explain reads it.
func TestScanOfCleanFolderParsesNoHLO(t *testing.T) {
	calls := 0
	load := loadDump
	loadDump = func(dir string, opt Options) (*diff.Dump, error) { calls++; return load(dir, opt) }
	defer func() { loadDump = load }()
	for _, c := range []struct {
		dir  string
		want int
	}{
		{"../testdata/runs/jax-0.12/fixed", 0},
		{"../testdata/runs/jax-0.12/partial-batch", 1},
	} {
		calls = 0
		if _, err := Logs([]string{c.dir}, ledger.ReadOptions{}); err != nil {
			t.Fatal(err)
		}
		if calls != c.want {
			t.Errorf("%s: the dump was read %d times, want %d", c.dir, calls, c.want)
		}
	}
}
