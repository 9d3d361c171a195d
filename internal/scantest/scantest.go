// Package scantest scans text with every stack's grammar, for the tests of logscan and of the
// framework units.
package scantest

import (
	"strings"
	"testing"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/logscan"
)

// Scan reads text with frameworks.Grammar() (opt.Grammar is set) and returns its events and
// stats; a read error fails the test.
func Scan(t testing.TB, text string, opt logscan.Options) ([]logscan.Event, logscan.Stats) {
	t.Helper()
	opt.Grammar = frameworks.Grammar()
	s := logscan.NewScanner(strings.NewReader(text), "t.log", opt)
	var evs []logscan.Event
	for s.Scan() {
		evs = append(evs, s.Event())
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return evs, s.Stats()
}

// One scans one line and returns its one event; any other number fails the test.
func One(t testing.TB, line string) logscan.Event {
	t.Helper()
	evs, _ := Scan(t, line+"\n", logscan.Options{})
	if len(evs) != 1 {
		t.Fatalf("%q: got %d events %+v, want 1", line, len(evs), evs)
	}
	return evs[0]
}
