package version

import (
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

// The version is spelt the same by Go tags (vMAJOR.MINOR.PATCH), PEP 440 and wheel file names:
// only digits and dots, three numbers.
func TestVersionIsAReleaseNumber(t *testing.T) {
	if !regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`).MatchString(Version) {
		t.Errorf("Version %q is not MAJOR.MINOR.PATCH", Version)
	}
}

func TestDescribe(t *testing.T) {
	vcs := &debug.BuildInfo{GoVersion: "go1.26.8", Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2026-11-23T09:15:12Z"}, {Key: "vcs.modified", Value: "true"}}}
	for _, c := range []struct {
		bi    *debug.BuildInfo
		ld    string
		want  string
		label string
	}{
		{vcs, "", "recomp " + Version + " (revision 0123abcd, modified, 2026-11-23T09:15:12Z) go1.26.8", "a checkout with changes"},
		{vcs, "feedbeef", "recomp " + Version + " (revision 0123abcd, modified, 2026-11-23T09:15:12Z) go1.26.8", "VCS information wins over -ldflags"},
		{&debug.BuildInfo{GoVersion: "go1.26.8"}, "feedbeef", "recomp " + Version + " (revision feedbeef) go1.26.8", "a source archive built with -ldflags"},
		{&debug.BuildInfo{GoVersion: "go1.26.8"}, "", "recomp " + Version + " go1.26.8", "no revision known"},
		{nil, "", "recomp " + Version, "no build information"},
	} {
		if got := describe(c.bi, c.ld); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.label, got, c.want)
		}
	}
}

// Report is String without the toolchain.
func TestReport(t *testing.T) {
	r := Report()
	if strings.Contains(r, " go1") || !strings.HasPrefix(String(), r) || !strings.HasPrefix(r, "recomp "+Version) {
		t.Errorf("Report %q of String %q", r, String())
	}
}
