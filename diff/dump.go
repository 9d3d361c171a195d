package diff

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/hlo"
	"github.com/recomp/recomp/internal/input"
	"github.com/recomp/recomp/internal/lazyre"
	"github.com/recomp/recomp/internal/openfile"
	"github.com/recomp/recomp/runfolder"
)

// Stage names used for pairing.
const (
	StageBefore = "before_optimizations"
	StageAfter  = "after_optimizations"
)

// DumpFile is one HLO text file of a dump.
type DumpFile struct {
	Path  string
	ID    int    // the module_NNNN counter (-1 when the name has none)
	Name  string // the module name from the file name ("" for TF 1.15 dumps)
	Stage string // before_optimizations, after_optimizations, a pass name, or ""
	// Module is the parsed module while the dump holds it: a dump holds its first modules (up
	// to LoadOptions.HoldBytes of text, 64 modules) and reads the others again when they are
	// compared (Dump.Module), so a folder of 100 000 modules is compared two at a time.
	Module *hlo.Module
	// ModuleName is the module's own name (its HloModule line), Family its family; both are
	// kept whether the module is held or not.
	ModuleName string
	Family     string
	// Role is what the module does among the programs of its family, as its graph says
	// (frameworks.Role: Keras's "train step", "test step", "predict step"); "" when unknown.
	Role string
	// Inference says the module's ops carry metadata and none is a gradient op of any stack
	// (frameworks.Inference): a graph that computes no gradient, an evaluation, scoring or
	// predict step.
	Inference bool
	Bytes     int // the size of its text
	// PID is the process that dumped it when the folder gave each process after the first a
	// folder of its own (runfolder.ProcessFolder: pid-N), 0 for the folder's own files. XLA numbers
	// each process's modules from 0: only files of one process are versions of each other.
	PID int
}

// Problem is a module file that could not be read or parsed; the rest of the dump is compared
// without it. Line and Col are 0 when the problem is not at a position in the text.
type Problem struct {
	Path      string
	Line, Col int
	Message   string
}

func (p Problem) String() string {
	if p.Line == 0 {
		return p.Path + ": " + p.Message
	}
	return fmt.Sprintf("%s:%d:%d: %s", p.Path, p.Line, p.Col, p.Message)
}

// Dump is the HLO modules of one folder, or one file.
type Dump struct {
	Path     string
	limit    int64               // LoadOptions.MaxFileBytes
	sources  func(string) string // LoadOptions.SourceFiles
	Files    []*DumpFile         // parsed modules of the chosen stage, in (ID, name) order
	Stages   []string            // every stage seen
	Ignored  int                 // files that are not HLO text or not of the chosen stage
	Problems []Problem           // module files that could not be read or parsed
	Warnings []string            // entries skipped: not regular files, broken links
}

// The name patterns match any byte in a name ((?s): a module name in a file name can hold a
// newline or another control character, and such a file is paired like any other).
var (
	reDumpName = lazyre.New(`(?s)^(?:\d+\.)?module_(\d+)(?:\.(.*))?$`)
	reAfter    = lazyre.New(`(?s)^(?:(.*)\.)?((?:sm_[0-9.]+_gpu_|gfx[0-9a-z]+_gpu_|[a-z0-9]+_)?after_optimizations)$`)
	rePass     = lazyre.New(`(?s)^(?:(.*)\.)?(\d{4}\.[^.]+\.after_.+)$`)
)

// notHLO are the endings (before .txt) of dump files that are not HLO modules; a module whose
// name holds one of them elsewhere is still a module.
var notHLO = []string{"-buffer-assignment", "-memory-usage-report", "-live-range", ".ir-no-opt", ".ir-with-opt",
	".thunk_sequence", ".metadata", "autotune_results", "gpu_target_config"}

// ParseDumpName splits a dump file's base name (without .txt): [ts.]module_NNNN[.name].suffix.
func ParseDumpName(base string) (id int, name, stage string, ok bool) {
	m := reDumpName.FindStringSubmatch(base)
	if m == nil {
		return -1, "", "", false
	}
	id, _ = strconv.Atoi(m[1])
	rest := m[2]
	switch {
	case rest == StageBefore || strings.HasSuffix(rest, "."+StageBefore):
		return id, strings.TrimSuffix(strings.TrimSuffix(rest, StageBefore), "."), StageBefore, true
	case reAfter.MatchString(rest):
		a := reAfter.FindStringSubmatch(rest)
		return id, a[1], StageAfter, true
	case rePass.MatchString(rest):
		a := rePass.FindStringSubmatch(rest)
		return id, a[1], a[2], true
	}
	return id, rest, "", true
}

// LoadOptions choose what LoadDump keeps.
type LoadOptions struct {
	// Stage is "before", "after", a stage name, or "" for before_optimizations when the dump
	// has it and after_optimizations otherwise.
	Stage string
	// Stdin is read for the path "-".
	Stdin io.Reader
	// MaxFileBytes is the most read of one file, plain or inflated (0: DefaultMaxFileBytes).
	MaxFileBytes int64
	// HoldBytes is how much module text the dump holds parsed (0: DefaultHoldBytes; at most
	// 64 modules); the modules past it are parsed to be checked and named, then dropped,
	// and read again when they are compared. A file named on its own is always held.
	HoldBytes int64
	// SourceFiles, when set, renames the source files each module names as it is parsed
	// (hlo.Module.MapSourceFiles): a run's own files named relative to where it ran.
	SourceFiles func(file string) string
}

// DefaultHoldBytes is the module text a dump holds parsed unless told otherwise (the parsed
// form of a large module takes about 2.6 times its text), and maxHeld the number of modules
// (the parsed form of a small module takes over 100 KB whatever its size).
const (
	DefaultHoldBytes = 32 << 20
	maxHeld          = 64
)

// LoadDump reads a dump folder or one HLO file ("-" for stdin; gzip is read transparently).
// In a folder only regular files are read (a FIFO or device named like a module is skipped
// with a warning), files that are not HLO text are ignored, and a module that cannot be read
// or parsed becomes a Problem: the others are still loaded. The error is for a path that
// cannot be read at all.
func LoadDump(path string, opt LoadOptions) (*Dump, error) {
	d := &Dump{Path: path, limit: opt.MaxFileBytes, sources: opt.SourceFiles}
	if path == "-" {
		d.loadFile(path, opt.Stdin, true, opt.MaxFileBytes)
		return d, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		d.loadFile(path, nil, true, opt.MaxFileBytes)
		return d, nil
	}
	folders, err := runfolder.DumpFolders(path)
	if err != nil {
		return nil, err
	}
	var cands []dumpCandidate
	stages := map[string]bool{}
	for _, f := range folders {
		if f.Err != nil {
			d.Warnings = append(d.Warnings, fmt.Sprintf("%s: skipped: %v", f.Path, unwrapPath(f.Path, f.Err)))
			continue
		}
		c, s := d.candidates(f.Path, f.Entries, f.PID)
		cands = append(cands, c...)
		for k := range s {
			stages[k] = true
		}
	}
	for s := range stages {
		d.Stages = append(d.Stages, s)
	}
	sort.Strings(d.Stages)
	want := chooseStage(opt.Stage, stages, d.Stages)
	if !stages[want] && len(cands) > 0 {
		if opt.Stage == "" { // several stages, none of them the default
			return nil, fmt.Errorf("%s: HLO files of %d stages and none is %s or %s: name the stage to compare (stages here: %s)",
				path, len(d.Stages), StageBefore, StageAfter, strings.Join(quoteAll(d.Stages), ", "))
		}
		return nil, fmt.Errorf("%s: no HLO files of stage %q (stages here: %s)", path, want, strings.Join(quoteAll(d.Stages), ", "))
	}
	d.loadStage(cands, want, opt)
	sort.SliceStable(d.Files, func(i, j int) bool {
		if d.Files[i].PID != d.Files[j].PID {
			return d.Files[i].PID < d.Files[j].PID
		}
		if d.Files[i].ID != d.Files[j].ID {
			return d.Files[i].ID < d.Files[j].ID
		}
		return d.Files[i].Path < d.Files[j].Path
	})
	if len(d.Files) == 0 && len(d.Problems) == 0 {
		return nil, fmt.Errorf("%s: no HLO text files found (looked for module_NNNN.*.txt and files starting with HloModule)", path)
	}
	return d, nil
}

// ProcessDir is the folder of its own a dump file's process dumped it into ("pid-N"), "" for a
// file of the dump's own folder.
func ProcessDir(path string) string {
	dir := filepath.Base(filepath.Dir(path))
	if _, ok := runfolder.ProcessFolder(dir); ok {
		return dir
	}
	return ""
}

// dumpCandidate is a file of a dump folder that may be a module: its id, name and stage from
// its file name (id -1 when the name is not XLA's).
type dumpCandidate struct {
	path        string
	id, pid     int
	name, stage string
}

// candidates lists the files of a dump folder that may be modules, and the stages they are
// of; it counts the others as ignored, with a warning for one that is no regular file. pid is
// the process whose folder it is (0: the dump's own).
func (d *Dump) candidates(path string, entries []os.DirEntry, pid int) ([]dumpCandidate, map[string]bool) {
	var cands []dumpCandidate
	stages := map[string]bool{}
	for _, e := range entries {
		n := e.Name()
		base, ok := hloBase(n)
		if e.IsDir() || !ok || slices.ContainsFunc(notHLO, func(s string) bool { return strings.HasSuffix(base, s) }) {
			d.Ignored++
			continue
		}
		full := filepath.Join(path, n)
		if !e.Type().IsRegular() {
			// Only regular files are opened (internal/openfile's rule): a FIFO would block, a
			// device never end.
			if _, err := os.Stat(full); err != nil {
				d.Warnings = append(d.Warnings, fmt.Sprintf("%s: skipped: %v", full, unwrapPath(full, err)))
				continue
			}
			if ok, why := openfile.Regular(full); !ok {
				d.Warnings = append(d.Warnings, why)
				continue
			}
		}
		id, name, stage, ok := ParseDumpName(base)
		if !ok {
			id, name, stage = -1, base, ""
		}
		stages[stage] = true
		cands = append(cands, dumpCandidate{full, id, pid, name, stage})
	}
	return cands, stages
}

// loadStage loads the candidates of stage want, holding parsed the modules that fit in
// opt.HoldBytes (at most maxHeld).
func (d *Dump) loadStage(cands []dumpCandidate, want string, opt LoadOptions) {
	hold, held := opt.HoldBytes, 0
	if hold <= 0 {
		hold = DefaultHoldBytes
	}
	for _, c := range cands {
		if c.stage != want {
			d.Ignored++
			if oddName(c.path) {
				// a name made to hide: never dropped without a word
				d.Warnings = append(d.Warnings, fmt.Sprintf("%s: skipped: not a module of stage %s (its name holds control characters)", c.path, want))
			}
			continue
		}
		f := d.loadFile(c.path, nil, false, opt.MaxFileBytes)
		if f == nil {
			continue
		}
		f.ID, f.Stage, f.PID = c.id, c.stage, c.pid
		if c.name != "" {
			f.Name = c.name
		}
		if hold -= int64(f.Bytes); hold < 0 || held == maxHeld {
			f.Module = nil // parsed and checked; read again when compared
		} else {
			held++
		}
	}
}

// oddName reports whether a file's name holds control characters or bytes that are not UTF-8.
func oddName(path string) bool {
	name := filepath.Base(path)
	return !utf8.ValidString(name) || strings.ContainsFunc(name, unicode.IsControl)
}

// hloBase returns a dump file's name without .txt or .hlo (and .gz), and whether it has one.
func hloBase(name string) (string, bool) {
	name = strings.TrimSuffix(name, ".gz")
	for _, ext := range []string{".txt", ".hlo"} {
		if b, ok := strings.CutSuffix(name, ext); ok {
			return b, true
		}
	}
	return name, false
}

func chooseStage(want string, stages map[string]bool, all []string) string {
	switch want {
	case "before":
		return StageBefore
	case "after":
		return StageAfter
	case "":
		switch {
		case stages[StageBefore]:
			return StageBefore
		case stages[StageAfter]:
			return StageAfter
		case len(all) == 1:
			return all[0]
		}
	}
	return want
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.Quote(x)
	}
	return out
}

// loadFile reads and parses one file into d. A file that cannot be read or parsed becomes a
// Problem; one that is not HLO text is ignored, unless explicit (named by the user), which is
// a Problem too.
func (d *Dump) loadFile(path string, stdin io.Reader, explicit bool, limit int64) *DumpFile {
	read := ReadFileMax
	if !explicit { // found in the folder: opened without waiting, refused unless regular
		read = func(path string, _ io.Reader, limit int64) ([]byte, error) { return input.ReadFound(path, limit) }
	}
	src, err := read(path, stdin, limit)
	if err != nil {
		d.Problems = append(d.Problems, Problem{Path: path, Message: unwrapPath(path, err).Error()})
		return nil
	}
	if !looksLikeHLO(src) {
		switch {
		case explicit:
			d.Problems = append(d.Problems, Problem{Path: path, Message: "not HLO text (no HloModule or computation found)"})
		case oddName(path):
			d.Warnings = append(d.Warnings, fmt.Sprintf("%s: skipped: not HLO text (its name holds control characters)", path))
		default:
			d.Ignored++
		}
		return nil
	}
	m, err := hlo.Parse(path, src)
	if err != nil {
		var list hlo.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			p := list[0]
			msg := p.Msg
			if len(list) > 1 {
				msg += fmt.Sprintf(" (and %d more errors)", len(list)-1)
			}
			d.Problems = append(d.Problems, Problem{Path: path, Line: p.Line, Col: p.Col, Message: msg})
		} else {
			d.Problems = append(d.Problems, Problem{Path: path, Message: err.Error()})
		}
		return nil
	}
	if d.sources != nil {
		m.MapSourceFiles(d.sources)
	}
	name := strings.Clone(m.Name) // (the parser's strings are views of the text)
	fam := frameworks.Family(name)
	f := &DumpFile{Path: path, ID: -1, Module: m, ModuleName: name, Family: fam, Role: frameworks.Role(fam, m),
		Inference: frameworks.Inference(m), Bytes: len(src)}
	d.Files = append(d.Files, f)
	return f
}

// Module returns a file's module: the one the dump holds, or the file read and parsed again.
// A file that no longer reads or parses (it changed since LoadDump) becomes a Problem of the
// dump, and ok is false.
func (d *Dump) Module(f *DumpFile) (m *hlo.Module, ok bool) {
	if f.Module != nil {
		return f.Module, true
	}
	var src []byte
	var err error
	if f.Path == d.Path {
		src, err = ReadFileMax(f.Path, nil, d.limit)
	} else { // found in the folder
		src, err = input.ReadFound(f.Path, d.limit)
	}
	if err == nil {
		m, err = hlo.Parse(f.Path, src)
	}
	if err != nil {
		d.Problems = append(d.Problems, Problem{Path: f.Path, Message: "read again to be compared: " + unwrapPath(f.Path, err).Error()})
		return nil, false
	}
	if d.sources != nil {
		m.MapSourceFiles(d.sources)
	}
	return m, true
}

// DefaultMaxFileBytes is the most recomp reads of one HLO file, plain or as gzip inflates it
// (input.DefaultMaxBytes): a module is read whole (and parsed into about 2.6 times its size),
// so a larger file is refused with an error rather than exhausting memory.
const DefaultMaxFileBytes = input.DefaultMaxBytes

// TooLargeError is a file over the cap (input.TooLargeError).
type TooLargeError = input.TooLargeError

// ReadFile reads one HLO text file with the default cap (ReadFileMax).
func ReadFile(path string, stdin io.Reader) ([]byte, error) {
	return ReadFileMax(path, stdin, DefaultMaxFileBytes)
}

// ReadFileMax reads one HLO text file: "-" reads stdin, gzip data (by its magic bytes) is
// decompressed; a file of more than limit bytes, plain or inflated, is a *TooLargeError.
func ReadFileMax(path string, stdin io.Reader, limit int64) ([]byte, error) {
	return input.ReadAll(path, stdin, limit)
}

// unwrapPath is err about path without the path, which a Problem or warning names anyway:
// the path of an fs.PathError, and the "path: " that errors about reading (gzip) start with.
func unwrapPath(path string, err error) error {
	var tl *TooLargeError
	if errors.As(err, &tl) {
		return errors.New(tl.Reason())
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Op, pe.Err)
	}
	if msg, ok := strings.CutPrefix(err.Error(), path+": "); ok {
		return errors.New(msg)
	}
	return err
}

func looksLikeHLO(src []byte) bool {
	head := bytes.TrimLeft(src[:min(len(src), 4096)], " \t\r\n")
	if bytes.HasPrefix(head, []byte("HloModule")) {
		return true
	}
	// a module printed without its header: ENTRY or a computation header
	return bytes.Contains(head, []byte("ENTRY")) && bytes.Contains(head, []byte("parameter("))
}
