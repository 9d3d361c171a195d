package runner

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/internal/openfile"
	"github.com/recomp/recomp/runfolder"
)

// The probe is a sitecustomize.py that recomp run puts first on the command's PYTHONPATH: it
// writes, for each compilation a framework reports to its monitoring API (JAX) and each Keras
// fit, evaluate and predict, the first frame of the program's own code to runfolder.ProbeName in the run
// folder. See probe/sitecustomize.py.

//go:embed probe/sitecustomize.py
var probeSource []byte

// Probe is a run folder's probe: the folder that goes on PYTHONPATH and the file it writes.
type Probe struct {
	Dir, Out string
}

// WriteProbe writes the probe into the run folder dir (an absolute path).
func WriteProbe(dir string) (*Probe, error) {
	p := &Probe{Dir: filepath.Join(dir, runfolder.ProbeDir), Out: filepath.Join(dir, runfolder.ProbeName)}
	if err := os.MkdirAll(p.Dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(p.Dir, "sitecustomize.py"), probeSource, 0o644); err != nil {
		return nil, err
	}
	names, _ := json.Marshal(frameworks.Packages())
	if err := os.WriteFile(filepath.Join(p.Dir, "packages.json"), names, 0o644); err != nil {
		return nil, err
	}
	return p, nil
}

// Remove removes the probe's own files (not what it wrote), and what it wrote when that is
// empty.
func (p *Probe) Remove() error {
	err := os.RemoveAll(p.Dir)
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
