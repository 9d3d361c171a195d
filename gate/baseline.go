package gate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/recomp/recomp/internal/atomicfile"
	"github.com/recomp/recomp/internal/input"
	"github.com/recomp/recomp/internal/openfile"
	"github.com/recomp/recomp/ledger"
)

// Baseline is the known-good module families of a run and the graph hashes they compiled
// with (the --baseline file, JSON version 1).
type Baseline struct {
	Version  int                 `json:"version"`
	Families map[string][]string `json:"families"`
}

// NewBaseline takes the families and hashes of a report. Compilations whose program the log
// does not name are kept under ledger.Unnamed with their graph hashes.
func NewBaseline(rep *ledger.Report) *Baseline {
	b := &Baseline{Version: 1, Families: map[string][]string{}}
	for _, m := range rep.Modules {
		if m.Compilations == 0 {
			continue
		}
		hashes := append([]string{}, m.Hashes...)
		sort.Strings(hashes)
		b.Families[m.Family] = hashes
	}
	return b
}

// MaxBaselineBytes is the most ReadBaseline reads: a baseline lists hashes per family (a few
// KiB for a real model).
const MaxBaselineBytes = 64 << 20

// ReadBaseline reads a baseline file (named on the command line, so a pipe is read too) of at
// most MaxBaselineBytes.
func ReadBaseline(path string) (*Baseline, error) {
	data, err := openfile.ReadCapped(path, true, MaxBaselineBytes, "a baseline")
	if err != nil {
		return nil, err
	}
	var b Baseline
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("%s: not a recomp baseline: %v", path, err)
	}
	if b.Version != 1 {
		return nil, fmt.Errorf("%s: baseline version %d, this recomp reads version 1", path, b.Version)
	}
	if b.Families == nil {
		b.Families = map[string][]string{}
	}
	return &b, nil
}

// ErrWouldOverwriteInput is returned by WriteBaseline when the target is one of the inputs.
var ErrWouldOverwriteInput = errors.New("would overwrite an input")

// Opened is an input recomp read: the name it was given by and the file behind it (the run.log
// of a run folder, the file standard input was redirected from).
type Opened struct {
	Name string
	Info os.FileInfo
}

// OpenedInputs are the files recomp reads for the inputs at paths: a run folder's run.log, the
// file behind standard input ("-").
func OpenedInputs(paths []string, stdin io.Reader) []Opened {
	var out []Opened
	for _, p := range paths {
		o := Opened{Name: p}
		if p == input.Stdin {
			o.Name = "standard input"
			if f, ok := stdin.(*os.File); ok {
				o.Info, _ = f.Stat()
			}
		} else {
			log := input.RunLog(p)
			o.Info, _ = os.Stat(log)
			if log != p {
				o.Name = log
			}
		}
		out = append(out, o)
	}
	return out
}

// WriteBaseline writes b to path. It refuses a path that is one of the files recomp read,
// however it is spelled (compared by file identity: a relative and an absolute path, a
// symbolic or hard link, the run.log of a run folder, the file behind standard input), and
// writes a temporary file in the same folder that it renames into place, so a failed write
// never leaves a truncated file and never truncates a file recomp was asked to read.
func WriteBaseline(path string, b *Baseline, inputs []Opened) error {
	if st, err := os.Stat(path); err == nil {
		if !st.Mode().IsRegular() {
			return fmt.Errorf("%s: not a regular file", path)
		}
		for _, in := range inputs {
			if in.Info != nil && os.SameFile(st, in.Info) {
				return fmt.Errorf("%s: %w (%s)", path, ErrWouldOverwriteInput, in.Name)
			}
		}
	}
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(data, '\n'), 0o644)
}

// BaselineOf is the baseline of the logs a scan read, refused when the logs could not all be
// read, hold more module families than the ledger lists, or were read in part for a cap (the
// baseline would miss what they hold).
func BaselineOf(s *ledger.Scan) (*Baseline, error) {
	if problems := s.ReadErrors(); len(problems) > 0 {
		return nil, fmt.Errorf("not writing a baseline from an incomplete log: %s", problems[0])
	}
	if n := s.Ledger.Summary.FamiliesNotListed; n > 0 {
		return nil, fmt.Errorf("not writing a baseline: %d module families beyond the first %d of a process are counted, not listed, so the baseline would miss them",
			n, ledger.MaxFamilies)
	}
	if len(s.Ledger.LeftOut) > 0 {
		return nil, fmt.Errorf("not writing a baseline from logs read in part: %s", s.Ledger.LeftOut[0])
	}
	return NewBaseline(s.Ledger), nil
}
