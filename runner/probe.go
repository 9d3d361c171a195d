package runner

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/internal/openfile"
)

// The probe is a sitecustomize.py that recomp run puts first on the command's PYTHONPATH: it
// writes, for each compilation a framework reports to its monitoring API (JAX) and each Keras
// fit, evaluate and predict, the first frame of the program's own code to ProbeName in the run
// folder. See probe/sitecustomize.py.

//go:embed probe/sitecustomize.py
var probeSource []byte

// The probe's files.
const (
	ProbeName   = "probe.jsonl"      // what the probe wrote, in the run folder
	probeDir    = ".recomp-probe"    // its sitecustomize.py, removed after the run
	ProbeOutVar = "RECOMP_PROBE_OUT" // where the probe writes
)

// Probe is a run folder's probe: the folder that goes on PYTHONPATH and the file it writes.
type Probe struct {
	Dir, Out string
}

// WriteProbe writes the probe into the run folder dir (an absolute path).
func WriteProbe(dir string) (*Probe, error) {
	p := &Probe{Dir: filepath.Join(dir, probeDir), Out: filepath.Join(dir, ProbeName)}
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

// ProbeRecord is one line the probe wrote.
type ProbeRecord struct {
	Framework string  `json:"framework"`
	Event     string  `json:"event"` // jax: trace, lower, compile; keras: fit_begin, fit_end, …; tf: trace
	Seconds   float64 `json:"seconds,omitempty"`
	Name      string  `json:"name,omitempty"` // the function or module the framework named
	File      string  `json:"file,omitempty"` // the program's own line: its file, line and function
	Line      int     `json:"line,omitempty"`
	Function  string  `json:"function,omitempty"`
	T         float64 `json:"t"` // Unix seconds
	// T0 is when the call began, for a record written when it ended (tf: trace).
	T0  float64 `json:"t0,omitempty"`
	PID int     `json:"pid"`
	// Samples and BatchSize are a Keras call's on arrays (keras: *_begin; 0 when its data is a
	// dataset): what the size of its last batch follows from.
	Samples   int `json:"samples,omitempty"`
	BatchSize int `json:"batch_size,omitempty"`
	// Versions are the framework distributions' versions (python: versions, written at exit).
	Versions map[string]string `json:"versions,omitempty"`
}

// ProbeVersions are the versions the probe found in the command's own Python (nil when it
// wrote none: no Python ran with the probe, or it did not reach its end).
func ProbeVersions(recs []ProbeRecord) map[string]string {
	for _, r := range recs {
		if r.Framework == "python" && r.Event == "versions" && r.Versions != nil {
			return r.Versions
		}
	}
	return nil
}

// Time is when the probe wrote the record.
func (r ProbeRecord) Time() time.Time { return unixTime(r.T) }

// Begin is when the call the record is about began (its Time when not said).
func (r ProbeRecord) Begin() time.Time {
	if r.T0 > 0 {
		return unixTime(r.T0)
	}
	return r.Time()
}

func unixTime(t float64) time.Time {
	sec := int64(t)
	return time.Unix(sec, int64((t-float64(sec))*1e9)).UTC()
}

// maxProbeRecords bounds what ReadProbe keeps.
const maxProbeRecords = 1 << 20

// ReadProbe reads what the probe wrote in a run folder: nil, nil when it wrote nothing; an error
// when probe.jsonl is not a regular file (a FIFO or a device is never read). Lines
// that are not records (a run cut while writing one, a line over 1 MiB) are skipped: the
// others still count.
func ReadProbe(dir string) ([]ProbeRecord, error) {
	f, _, err := openfile.Open(filepath.Join(dir, ProbeName), false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []ProbeRecord
	br := bufio.NewReaderSize(f, 64<<10)
	var line []byte
	skip := false // the line is over maxProbeLine: the rest of it is dropped too
	for len(out) < maxProbeRecords {
		chunk, err := br.ReadSlice('\n')
		if !skip && len(line)+len(chunk) > maxProbeLine {
			skip, line = true, line[:0]
		}
		if !skip {
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if !skip && len(line) > 0 {
			var r ProbeRecord
			if json.Unmarshal(line, &r) == nil && r.Event != "" {
				out = append(out, r)
			}
		}
		line, skip = line[:0], false
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// maxProbeLine bounds one record: the probe writes a few hundred bytes a line.
const maxProbeLine = 1 << 20

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
