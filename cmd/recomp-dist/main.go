// Command recomp-dist builds recomp's release files into a folder: a static binary for each
// target (recomp-linux-amd64, …, recomp-windows-amd64.exe), a Python wheel for each that
// installs the binary as the `recomp` command, and SHA256SUMS. It needs Go and nothing from the
// network beyond the module cache; .ci/run runs it.
//
//	go run ./cmd/recomp-dist [-out dist] [-targets all|linux/amd64,…] [-revision COMMIT]
//
// Every binary is read back before it is packed: its format and architecture, that it is
// static, that the go command built it from cmd/recomp for that target with -trimpath and cgo
// off; the binary for this machine also runs --version, which must name internal/version's
// Version. The wheels carry that Version.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/recomp/recomp/internal/dist"
	"github.com/recomp/recomp/internal/version"
	"github.com/recomp/recomp/python"
	"github.com/recomp/recomp/runner"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("recomp-dist", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "dist", "the folder to write the release files to")
	targets := fs.String("targets", "all", "the targets, comma-separated GOOS/GOARCH pairs, or all")
	revision := fs.String("revision", "", "the commit the binaries name (default: git rev-parse HEAD; give it for a source archive)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ts, err := dist.ParseTargets(*targets)
	if err != nil {
		fmt.Fprintf(stderr, "recomp-dist: %v\n", err)
		return 2
	}
	if err := build(context.Background(), *out, ts, *revision, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "recomp-dist: %v\n", err)
		return 1
	}
	return 0
}

// summary is the wheel's METADATA summary; description its long description.
const summary = "The recompilation detective for XLA-based ML stacks (JAX, TF-XLA, PyTorch/XLA, Graphcore IPU): what compiled, what compiled again, and why"

const description = `# recomp

recomp reads what an XLA-based training run leaves behind (its log and its HLO dumps) and says
what was compiled, what the executable cache served, and why a graph was compiled again: which
shape, dtype, constant, layout or sharding changed, and what to do about it.

    recomp run -- python train.py

This wheel installs the ` + "`recomp`" + ` command: a static binary written in Go, built from
revision %s. It has no Python code and needs no Python package.
`

func build(ctx context.Context, out string, targets []dist.Target, revision string, stdout, stderr io.Writer) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	if err := clean(out); err != nil {
		return err
	}
	commit, when, dirty := gitRevision(root)
	if revision == "" {
		revision = commit
	}
	var sums []string
	var lines [][2]string
	revisions := map[string]bool{}
	for _, t := range targets {
		start := time.Now()
		path := filepath.Join(out, t.BinaryName())
		if err := dist.Build(ctx, t, dist.BuildOptions{Root: root, Output: path, Revision: revision, Stderr: stderr}); err != nil {
			return err
		}
		b, err := dist.Inspect(path, t)
		if err != nil {
			return err
		}
		rev := b.Revision
		if rev == "" {
			rev = revision
		}
		if b.Modified || dirty {
			rev += " (modified)"
		}
		revisions[rev] = true
		if t.OS == runtime.GOOS && t.Arch == runtime.GOARCH {
			if err := checkVersion(path); err != nil {
				return err
			}
		}
		sums = append(sums, b.SHA256+"  "+t.BinaryName())
		lines = append(lines, [2]string{t.BinaryName(), size(b.Size)})
		tags, err := dist.PlatformTags(b)
		if err != nil {
			return err
		}
		if rev == "" {
			rev = "unknown"
		}
		w := &dist.Wheel{Name: "recomp", Version: version.Version, Tags: tags, Command: t.Command(), Binary: path,
			Summary: summary, Description: fmt.Sprintf(description, rev), Time: when, Python: python.Files(runner.ProbeSource()), EntryPoints: python.EntryPoints}
		wpath := filepath.Join(out, w.FileName())
		sum, n, err := writeWheel(w, wpath)
		if err != nil {
			return err
		}
		sums = append(sums, sum+"  "+w.FileName())
		lines = append(lines, [2]string{w.FileName(), size(n)})
		fmt.Fprintf(stderr, "recomp-dist: %s in %.1fs\n", t, time.Since(start).Seconds())
	}
	if len(revisions) > 1 {
		return fmt.Errorf("the binaries name different revisions: %v", revisions)
	}
	sort.Slice(sums, func(i, j int) bool { return sums[i][66:] < sums[j][66:] })
	if err := os.WriteFile(filepath.Join(out, "SHA256SUMS"), []byte(strings.Join(sums, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	for rev := range revisions {
		fmt.Fprintf(stdout, "recomp %s, revision %s, in %s:\n", version.Version, rev, out)
	}
	for _, l := range lines {
		fmt.Fprintf(stdout, "  %8s  %s\n", l[1], l[0])
	}
	return nil
}

// checkVersion runs a binary built for this machine: --version must name Version.
func checkVersion(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	got, err := exec.Command(abs, "--version").Output()
	if err != nil {
		return fmt.Errorf("%s --version: %v", path, err)
	}
	if !strings.HasPrefix(string(got), "recomp "+version.Version+" ") && strings.TrimSpace(string(got)) != "recomp "+version.Version {
		return fmt.Errorf("%s --version says %q, want recomp %s", path, strings.TrimSpace(string(got)), version.Version)
	}
	return nil
}

func writeWheel(w *dist.Wheel, path string) (sha string, n int64, err error) {
	f, err := os.Create(path)
	if err != nil {
		return "", 0, err
	}
	if err := w.Write(f); err != nil {
		f.Close()
		return "", 0, fmt.Errorf("%s: %v", path, err)
	}
	if err := f.Close(); err != nil {
		return "", 0, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", 0, err
	}
	return sha256hex(data), int64(len(data)), nil
}

// gitRevision is the commit checked out in root, its time, and whether files differ from it;
// without git, an empty commit and 1980-01-01 (the oldest time a zip entry can have) as its time.
// `go build` stamps VCS information itself only into builds from a clone (.git a folder): not
// from a git worktree, nor where GOFLAGS has -buildvcs=false.
func gitRevision(root string) (commit string, when time.Time, dirty bool) {
	when = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	out, err := exec.Command("git", "-C", root, "log", "-1", "--format=%H %cI").Output()
	if err != nil {
		return "", when, false
	}
	commit, iso, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if t, err := time.Parse(time.RFC3339, iso); err == nil {
		when = t.UTC()
	}
	st, err := exec.Command("git", "-C", root, "status", "--porcelain").Output()
	return commit, when, err == nil && len(bytes.TrimSpace(st)) > 0
}

// moduleRoot is the folder of recomp's go.mod, where `go build ./cmd/recomp` runs.
func moduleRoot() (string, error) {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	p := strings.TrimSpace(string(gomod))
	if p == "" || p == os.DevNull {
		return "", errors.New("not inside recomp's module: run recomp-dist from its checkout")
	}
	data, err := os.ReadFile(p)
	if err != nil || !bytes.HasPrefix(data, []byte("module github.com/recomp/recomp\n")) {
		return "", fmt.Errorf("%s is not recomp's go.mod", p)
	}
	return filepath.Dir(p), nil
}

// clean makes the output folder, removing the release files an earlier run left there (and
// nothing else).
func clean(out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() && (strings.HasPrefix(e.Name(), "recomp-") || e.Name() == "SHA256SUMS") {
			if err := os.Remove(filepath.Join(out, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

func size(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
