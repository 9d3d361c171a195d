package runner

import (
	"os"
	"strings"
	"testing"
)

// The sync line recomp's Python package writes under recomp run is the one recomp run keeps off
// the terminal: the same words on both sides, and quiet.
func TestSyncLineIsQuiet(t *testing.T) {
	b, err := os.ReadFile("../python/recomp/_session.py")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `_SYNC = "`+SyncLine+`"`) {
		t.Errorf("python/recomp/_session.py does not write %q", SyncLine)
	}
	q := QuietOf(nil)
	for line, want := range map[string]bool{SyncLine + "0a1b2c3d4e5f6789": true, SyncLine + "0a1b\r": true,
		"my program: " + SyncLine + "00": false, SyncLine + "not hex": false} {
		if got, _ := q.quiet([]byte(line), false); got != want {
			t.Errorf("%q quiet %v, want %v", line, got, want)
		}
	}
}
