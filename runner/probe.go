package runner

import (
	_ "embed"
	"os"
	"path/filepath"

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
