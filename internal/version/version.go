// Package version is recomp's one source of truth for its version: the binaries (--version),
// the reports, the release file names and the Python wheels all take it from here.
//
// Version changes only in this file, and a release is tagged v<Version>. The revision comes
// from the VCS information the go command stamps into a build from a checkout, or, for a build
// from a source archive, from the linker:
//
//	go build -ldflags "-X github.com/recomp/recomp/internal/version.Revision=<commit>" ./cmd/recomp
package version

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Version is recomp's version: a PEP 440 release number that is also a semantic version
// (MAJOR.MINOR.PATCH), so a Go tag, a wheel and --version spell it alike.
const Version = "0.1.0"

// Revision is the commit the binary was built from when the build carried no VCS information
// (set with -ldflags -X); VCS information, when present, wins.
var Revision string

// String names the build: "recomp 0.1.0 (revision abc…, 2026-11-23T09:15:12Z) go1.26.8", with
// ", modified" after the revision when the checkout had uncommitted changes.
func String() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return describe(bi, Revision)
}

func describe(bi *debug.BuildInfo, ldRevision string) string {
	out := "recomp " + Version
	var rev, when, dirty, goVersion string
	if bi != nil {
		goVersion = bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = ", modified"
				}
			}
		}
	}
	switch {
	case rev != "" && when != "":
		out += fmt.Sprintf(" (revision %s%s, %s)", rev, dirty, when)
	case rev != "":
		out += fmt.Sprintf(" (revision %s%s)", rev, dirty)
	case ldRevision != "":
		out += fmt.Sprintf(" (revision %s)", ldRevision)
	}
	if goVersion != "" {
		out += " " + goVersion
	}
	return out
}

// Report names the build in reports: the module version and VCS revision, without the
// toolchain (a report's text does not change with the Go that built recomp).
func Report() string {
	v, _, _ := strings.Cut(String(), " go1")
	return v
}
