// Package python holds the Python code the wheel ships beside the binary: the package recomp
// (recomp/), whose pytest plugin (recomp.pytest_plugin, pytest's entry point pytest11) and
// context manager (recomp.gather) run the binary of the same wheel. cmd/recomp-dist puts Files
// into every wheel; nothing of recomp's Go code runs it.
package python

import "embed"

// Files is the package recomp: recomp/*.py.
//
//go:embed recomp/*.py
var Files embed.FS

// EntryPoints is the wheel's entry_points.txt: pytest loads the plugin from it.
const EntryPoints = "[pytest11]\nrecomp = recomp.pytest_plugin\n"
