// Package python holds the Python code the wheel ships beside the binary: the package recomp
// (recomp/), whose pytest plugin and context manager (recomp.gather) run the binary of the same
// wheel, and pytest's entry point (pytest11) into the plugin, _recomp_pytest/plugin.py: outside
// the package, in a folder with no __init__.py, so that pytest does not rewrite and cache it
// (see that file). cmd/recomp-dist puts Files into every wheel; nothing of recomp's Go code runs
// it.
package python

import (
	"embed"
	"io/fs"
	"testing/fstest"
)

//go:embed recomp/*.py _recomp_pytest/*.py
var source embed.FS

// ProbePath is where the wheel holds recomp's probe (runner.ProbeSource, the file recomp run and
// recomp session open write into a run folder): pip compiles it at install, and a session the
// pytest plugin or recomp.gather opens loads that compiled copy when it is the same text as
// the run folder's, instead of compiling 35 KB of source each time.
const ProbePath = "recomp/_probe/sitecustomize.py"

// Files is the package recomp (recomp/*.py), the entry point (_recomp_pytest/plugin.py), and
// probe (runner.ProbeSource: this package does not import the runner) at ProbePath. It is an
// in-memory file system (testing/fstest's MapFS: a map of paths, nothing of package testing).
func Files(probe []byte) fs.FS {
	out := fstest.MapFS{ProbePath: {Data: probe, Mode: 0o644}}
	err := fs.WalkDir(source, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(source, path)
		out[path] = &fstest.MapFile{Data: b, Mode: 0o644}
		return err
	})
	if err != nil {
		panic(err) // an embedded file system always reads
	}
	return out
}

// EntryPoints is the wheel's entry_points.txt: pytest loads the plugin from it.
const EntryPoints = "[pytest11]\nrecomp = _recomp_pytest.plugin\n"
