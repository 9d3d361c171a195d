package explain

import (
	"testing"

	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/runfolder"
)

// A run folder's report names the program's own files relative to the directory the command ran
// in, where they lie under it; a file outside it (a library, another tree) keeps its path, and so
// does every file when the manifest names no absolute working directory.
func TestRelativeSites(t *testing.T) {
	mk := func() *ledger.Report {
		return &ledger.Report{
			Modules: []*ledger.Module{{Units: []*ledger.Unit{
				{Site: ledger.Site{File: "/home/me/proj/train.py", Line: 12, Function: "main"}},
				{Site: ledger.Site{File: "/home/me/proj/pkg/model.py", Line: 3}},
				{Site: ledger.Site{File: "/home/me/other/x.py", Line: 1}},
				{Site: ledger.Site{File: "/home/me/projector/y.py", Line: 1}},
				{Site: ledger.Site{File: "rel/z.py", Line: 9}},
			}}},
			Sequences: []*ledger.Sequence{{Entries: []ledger.Entry{{Site: "/home/me/proj/train.py:12 (main)"}, {Site: "/usr/lib/x.py:1"}}}},
		}
	}
	rep := mk()
	relativeSites(rep, &runfolder.Manifest{WorkDir: "/home/me/proj"})
	var got []string
	for _, u := range rep.Modules[0].Units {
		got = append(got, u.Site.String())
	}
	want := []string{"train.py:12 (main)", "pkg/model.py:3", "/home/me/other/x.py:1", "/home/me/projector/y.py:1", "rel/z.py:9"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("site %d: %q, want %q", i, got[i], want[i])
		}
	}
	if e := rep.Sequences[0].Entries; e[0].Site != "train.py:12 (main)" || e[1].Site != "/usr/lib/x.py:1" {
		t.Errorf("sequence sites %q, %q", e[0].Site, e[1].Site)
	}
	rep = mk()
	relativeSites(rep, &runfolder.Manifest{})
	if s := rep.Modules[0].Units[0].Site.File; s != "/home/me/proj/train.py" {
		t.Errorf("no working directory: %q", s)
	}
}
