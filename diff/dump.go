// Package diff explains why a graph was compiled again. It reads XLA dump folders (or single
// HLO files), pairs the modules of two runs (or the consecutive compilations of one module in
// one run), compares paired modules structurally (instruction names, numbering and order do
// not matter), and classifies the changes into causes with evidence and advice.
package diff

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/recomp/recomp/hlo"
)

// Stage names used for pairing.
const (
	StageBefore = "before_optimizations"
	StageAfter  = "after_optimizations"
)

// DumpFile is one HLO text file of a dump.
type DumpFile struct {
	Path   string
	ID     int    // the module_NNNN counter (-1 when the name has none)
	Name   string // the module name from the file name ("" for TF 1.15 dumps)
	Stage  string // before_optimizations, after_optimizations, a pass name, or ""
	Module *hlo.Module
	Family string
}

// Dump is the HLO modules of one folder, or one file.
type Dump struct {
	Path     string
	Files    []*DumpFile // parsed modules of the chosen stage, in (ID, name) order
	Stages   []string    // every stage seen
	Ignored  int         // files that are not HLO text or not of the chosen stage
	Warnings []string
}

var (
	reDumpName = regexp.MustCompile(`^(?:\d+\.)?module_(\d+)(?:\.(.*))?$`)
	reAfter    = regexp.MustCompile(`^(?:(.*)\.)?((?:sm_[0-9.]+_gpu_|gfx[0-9a-z]+_gpu_|[a-z0-9]+_)?after_optimizations)$`)
	rePass     = regexp.MustCompile(`^(?:(.*)\.)?(\d{4}\.[^.]+\.after_.+)$`)
)

// notHLO are suffixes of dump files that are not HLO modules.
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
}

// LoadDump reads a dump folder or one HLO file. Files that are not HLO text are skipped;
// files that do not parse are an error naming the file and line.
func LoadDump(path string, opt LoadOptions) (*Dump, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	d := &Dump{Path: path}
	if !st.IsDir() {
		f, err := loadFile(path)
		if err != nil {
			return nil, err
		}
		if f == nil {
			return nil, fmt.Errorf("%s: not HLO text (no HloModule or computation found)", path)
		}
		d.Files = []*DumpFile{f}
		return d, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	type cand struct {
		path        string
		id          int
		name, stage string
	}
	var cands []cand
	stages := map[string]bool{}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !(strings.HasSuffix(n, ".txt") || strings.HasSuffix(n, ".hlo")) {
			d.Ignored++
			continue
		}
		base := strings.TrimSuffix(strings.TrimSuffix(n, ".txt"), ".hlo")
		skip := false
		for _, s := range notHLO {
			if strings.Contains(base, s) {
				skip = true
			}
		}
		if skip {
			d.Ignored++
			continue
		}
		id, name, stage, ok := ParseDumpName(base)
		if !ok {
			id, name, stage = -1, base, ""
		}
		stages[stage] = true
		cands = append(cands, cand{filepath.Join(path, n), id, name, stage})
	}
	for s := range stages {
		d.Stages = append(d.Stages, s)
	}
	sort.Strings(d.Stages)
	want := opt.Stage
	switch want {
	case "before":
		want = StageBefore
	case "after":
		want = StageAfter
	case "":
		switch {
		case stages[StageBefore]:
			want = StageBefore
		case stages[StageAfter]:
			want = StageAfter
		case len(stages) == 1:
			want = d.Stages[0]
		default:
			want = ""
		}
	}
	if !stages[want] && len(cands) > 0 {
		return nil, fmt.Errorf("%s: no HLO files of stage %q (stages here: %s)", path, want, strings.Join(quoteAll(d.Stages), ", "))
	}
	for _, c := range cands {
		if c.stage != want {
			d.Ignored++
			continue
		}
		f, err := loadFile(c.path)
		if err != nil {
			return nil, err
		}
		if f == nil {
			d.Ignored++
			continue
		}
		f.ID, f.Stage = c.id, c.stage
		if c.name != "" {
			f.Name = c.name
		}
		d.Files = append(d.Files, f)
	}
	sort.SliceStable(d.Files, func(i, j int) bool {
		if d.Files[i].ID != d.Files[j].ID {
			return d.Files[i].ID < d.Files[j].ID
		}
		return d.Files[i].Path < d.Files[j].Path
	})
	if len(d.Files) == 0 {
		return nil, fmt.Errorf("%s: no HLO text files found (looked for module_NNNN.*.txt and files starting with HloModule)", path)
	}
	return d, nil
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.Quote(x)
	}
	return out
}

// loadFile parses one file; it returns nil, nil for a file that is not HLO text.
func loadFile(path string) (*DumpFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	src, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if !looksLikeHLO(src) {
		return nil, nil
	}
	m, err := hlo.Parse(path, src)
	if err != nil {
		return nil, err
	}
	return &DumpFile{Path: path, ID: -1, Module: m, Family: hlo.Family(m.Name)}, nil
}

func looksLikeHLO(src []byte) bool {
	head := bytes.TrimLeft(src[:min(len(src), 4096)], " \t\r\n")
	if bytes.HasPrefix(head, []byte("HloModule")) {
		return true
	}
	// a module printed without its header: ENTRY or a computation header
	return bytes.Contains(head, []byte("ENTRY")) && bytes.Contains(head, []byte("parameter("))
}
