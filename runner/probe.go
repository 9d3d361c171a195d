package runner

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/internal/openfile"
	"github.com/recomp/recomp/runfolder"
)

// The probe is a sitecustomize.py that recomp run puts first on the command's PYTHONPATH: it
// writes, for each compilation a framework reports to its monitoring API (JAX), each trace of
// a tf.function and each Keras fit, evaluate and predict, the first frame of the program's own
// code to runfolder.ProbeName in the run folder. See probe/sitecustomize.py; each unit brings
// its hook (framework.Probe), put in where the file sets _HOOKS.

//go:embed probe/sitecustomize.py
var probeBase string

// ProbeSource is the probe with the units' hooks in it (each unit's source as the body of a
// function the probe runs when the program imports the unit's package: _unit), the
// stacks' loggers and the distributions whose versions it writes at exit. The wheel holds it
// too (python.Files), so that pip compiles it once at install for the pytest plugin.
func ProbeSource() []byte {
	var units, hooks strings.Builder
	for i, p := range frameworks.Probes() {
		// Each unit's text is the body of a function that returns its names (locals()): its
		// functions see each other's names as the closure's, the probe's as globals.
		define := fmt.Sprintf("_unit_%d", i)
		fmt.Fprintf(&units, "def %s():  # the unit of %s\n%s    return locals()\n\n\n", define, p.Package, indent(p.Hook))
		fmt.Fprintf(&hooks, "    %s: _unit(%s, %s),\n", pyString(p.Package), pyString(p.Function), define)
	}
	loggers, _ := json.Marshal(append([]string{}, frameworks.Loggers()...)) // [] not null
	packages, _ := json.Marshal(append([]string{}, frameworks.Packages()...))
	src := strings.Replace(probeBase, "_HOOKS = {}\n", units.String()+"_HOOKS = {\n"+hooks.String()+"}\n", 1)
	src = strings.Replace(src, "_LOGGERS = []\n", "_LOGGERS = "+string(loggers)+"\n", 1)
	return []byte(strings.Replace(src, "_PACKAGES = []\n", "_PACKAGES = "+string(packages)+"\n", 1))
}

// indent is Python source src as the body of a function: each line that is not blank four
// spaces in (a unit's multi-line strings are docstrings, whose text may move).
func indent(src string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(src, "\n") {
		if strings.TrimSpace(line) != "" {
			b.WriteString("    ")
		}
		b.WriteString(line)
	}
	if !strings.HasSuffix(b.String(), "\n") {
		b.WriteString("\n")
	}
	return b.String()
}

// pyString is s as a Python string literal: JSON's string syntax is a subset of Python's.
func pyString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// probeEffect is what the probe's setting does, for the manifest.
func probeEffect() string {
	var what []string
	for _, p := range frameworks.Probes() {
		what = append(what, p.Records)
	}
	if n := len(what); n > 1 {
		what[n-1] = "and " + what[n-1]
	}
	sep := ", "
	if len(what) == 2 {
		sep = " "
	}
	return "recomp's probe (a sitecustomize) writes the program's own line of " + strings.Join(what, sep) + " to probe.jsonl: a walk up " +
		"the Python stack per compilation, at most a few counter reads per step"
}

// Probe is a run folder's probe: the folder that goes on PYTHONPATH and the file it writes.
type Probe struct {
	Dir, Out string
	shared   bool // Dir is not the run folder's (SharedProbe): Remove leaves it
}

// SharedProbe is the probe of the run folder dir (an absolute path) loaded from the folder from
// instead of one written into dir: from's sitecustomize.py must be ProbeSource's text (the
// wheel's copy of this binary's probe, compiled by pip at install, so that no process of the
// session compiles it). Nil when it is not (a wheel of another version) or cannot be read. The
// folder is not the run folder's: nothing removes it.
func SharedProbe(dir, from string) *Probe {
	abs, err := filepath.Abs(from)
	if err != nil {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(abs, "sitecustomize.py"))
	if err != nil || !bytes.Equal(b, ProbeSource()) {
		return nil
	}
	return &Probe{Dir: abs, Out: filepath.Join(dir, runfolder.ProbeName), shared: true}
}

// WriteProbe writes the probe into the run folder dir (an absolute path).
func WriteProbe(dir string) (*Probe, error) {
	p := &Probe{Dir: filepath.Join(dir, runfolder.ProbeDir), Out: filepath.Join(dir, runfolder.ProbeName)}
	if err := os.MkdirAll(p.Dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(p.Dir, "sitecustomize.py"), ProbeSource(), 0o644); err != nil {
		return nil, err
	}
	return p, nil
}

// Remove removes the probe's own files (not what it wrote; not a shared probe's folder), and what
// it wrote when that is empty.
func (p *Probe) Remove() error {
	var err error
	if !p.shared {
		err = os.RemoveAll(p.Dir)
	}
	if st, serr := os.Stat(p.Out); serr == nil && st.Size() == 0 {
		os.Remove(p.Out)
	}
	return err
}

// ProbeBlocked says why the probe cannot load in the command's Python ("" when nothing shows):
// the interpreter's options -I (isolated: no PYTHONPATH), -E (no PYTHON* variables) or -S (no
// site, so no sitecustomize), given to python… itself or on a script's #! line.
func ProbeBlocked(command []string) string {
	args := command[1:]
	if !strings.HasPrefix(filepath.Base(command[0]), "python") {
		line := shebang(command[0])
		if len(line) == 0 {
			return ""
		}
		if filepath.Base(line[0]) == "env" {
			line = line[1:]
			for len(line) > 0 && strings.HasPrefix(line[0], "-") { // env -S …
				line = line[1:]
			}
		}
		if len(line) == 0 || !strings.HasPrefix(filepath.Base(line[0]), "python") {
			return ""
		}
		args = line[1:]
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-" || a == "--" || !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--") {
			return ""
		}
	letters:
		for j, c := range a[1:] {
			switch c {
			case 'I':
				return "python -I (isolated mode) ignores PYTHONPATH, where recomp puts its probe"
			case 'E':
				return "python -E ignores the PYTHON* variables, and PYTHONPATH is where recomp puts its probe"
			case 'S':
				return "python -S skips site, so no sitecustomize (recomp's probe) is loaded"
			case 'c', 'm':
				return "" // the program follows
			case 'W', 'X': // an option with a value: the rest of the word, else the next one
				if j+2 == len(a) {
					i++
				}
				break letters
			}
		}
	}
	return ""
}

// shebang is the #! line of a file split into words (nil when it has none).
func shebang(path string) []string {
	f, _, err := openfile.Open(path, false)
	if err != nil {
		return nil
	}
	defer f.Close()
	line, _ := bufio.NewReader(io.LimitReader(f, 512)).ReadString('\n')
	if !strings.HasPrefix(line, "#!") {
		return nil
	}
	return strings.Fields(strings.TrimPrefix(line, "#!"))
}
