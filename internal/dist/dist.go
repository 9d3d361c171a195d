// Package dist makes recomp's release files: a static binary per system and architecture, and a
// Python wheel per platform tag that installs the binary as the `recomp` command (the way ruff
// and uv reach Python users). Nothing here needs the network or a Python build backend: the
// binaries come from `go build`, the wheels are zip files written by WriteWheel.
package dist

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// Target is a system and architecture recomp is built for (GOOS/GOARCH).
type Target struct{ OS, Arch string }

func (t Target) String() string { return t.OS + "/" + t.Arch }

// Targets are the systems recomp's releases are built for. recomp run gives the command a
// pseudo-terminal on all but Windows, where it uses pipes.
var Targets = []Target{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}, {"windows", "amd64"}}

// ParseTargets reads "linux/amd64,darwin/arm64"; "all" is Targets.
func ParseTargets(s string) ([]Target, error) {
	if s == "" || s == "all" {
		return Targets, nil
	}
	var out []Target
	for _, f := range strings.Split(s, ",") {
		osName, arch, ok := strings.Cut(strings.TrimSpace(f), "/")
		t := Target{osName, arch}
		if !ok || !known(t) {
			return nil, fmt.Errorf("target %q: want one of %s", f, targetList())
		}
		out = append(out, t)
	}
	return out, nil
}

func known(t Target) bool {
	for _, k := range Targets {
		if k == t {
			return true
		}
	}
	return false
}

func targetList() string {
	var s []string
	for _, t := range Targets {
		s = append(s, t.String())
	}
	return strings.Join(s, ", ")
}

// BinaryName is the release file name of the target's binary: the same for every version, so
// that the newest release's binary has one address (recomp-linux-amd64, recomp-windows-amd64.exe).
func (t Target) BinaryName() string { return "recomp-" + t.OS + "-" + t.Arch + t.exe() }

// Command is the name the binary has once installed: recomp, or recomp.exe on Windows.
func (t Target) Command() string { return "recomp" + t.exe() }

func (t Target) exe() string {
	if t.OS == "windows" {
		return ".exe"
	}
	return ""
}

// BuildOptions are the inputs of one build besides the target.
type BuildOptions struct {
	Root     string // the module's root folder
	Output   string // the binary's path
	Revision string // set as version.Revision (-ldflags -X) when not empty: the commit for builds the go command stamps no VCS information into
	Stderr   io.Writer
}

// Build compiles cmd/recomp for t: static (CGO_ENABLED=0), with paths trimmed and symbol tables
// left out (-trimpath, -ldflags=-s -w), and with the instruction-set level pinned, so the same
// source and Go give the same bytes on any machine. -buildvcs=auto overrides a GOFLAGS or go env
// -buildvcs=false: a build from a clone carries its revision, time and modified flag.
func Build(ctx context.Context, t Target, opt BuildOptions) error {
	ldflags := "-s -w"
	if opt.Revision != "" {
		ldflags += " -X github.com/recomp/recomp/internal/version.Revision=" + opt.Revision
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=auto", "-ldflags="+ldflags, "-o", opt.Output, "./cmd/recomp")
	cmd.Dir = opt.Root
	cmd.Stdout, cmd.Stderr = opt.Stderr, opt.Stderr
	cmd.Env = append(buildEnv(os.Environ()), "CGO_ENABLED=0", "GOOS="+t.OS, "GOARCH="+t.Arch, "GOAMD64=v1", "GOARM64=v8.0", "GOFLAGS=")
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build for %s: %v", t, err)
	}
	return nil
}

// buildEnv is the environment without the settings Build chooses itself.
func buildEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "CGO_ENABLED", "GOOS", "GOARCH", "GOAMD64", "GOARM64", "GOFLAGS":
			continue
		}
		out = append(out, kv)
	}
	return out
}
