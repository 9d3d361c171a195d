package runfolder

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/recomp/recomp/internal/atomicfile"
	"github.com/recomp/recomp/internal/openfile"
)

// Manifest is a run folder's manifest.json: what ran, how, and what it left.
type Manifest struct {
	Version     int       `json:"version"`
	Recomp      string    `json:"recomp"`
	Command     []string  `json:"command"`
	WorkDir     string    `json:"work_dir"`
	Host        string    `json:"host"`
	Framework   Framework `json:"framework"`
	Dump        DumpMode  `json:"dump"`
	Settings    []Setting `json:"settings"`
	Start       time.Time `json:"start"`
	End         time.Time `json:"end"`
	WallSeconds float64   `json:"wall_seconds"`
	ExitCode    int       `json:"exit_code"`
	Signal      string    `json:"signal,omitempty"`
	Forwarded   []string  `json:"forwarded_signals"`
	// HeldOpen says a process the command started kept its output open after the command
	// exited; recomp stopped reading GraceSeconds later.
	HeldOpen bool `json:"held_open,omitempty"`
	// Stopped says why recomp stopped the command (--fail-on-recompile, --compile-budget);
	// StoppedLine is run.log's last line recomp had read when it decided to (0 when unknown):
	// the lines after it are the command's answer to the stop (a KeyboardInterrupt's
	// traceback), not evidence of what the run compiled.
	Stopped      string            `json:"stopped,omitempty"`
	StoppedLine  int64             `json:"stopped_line,omitempty"`
	GraceSeconds float64           `json:"grace_seconds,omitempty"`
	OutputLines  int64             `json:"output_lines"`
	OutputBytes  int64             `json:"output_bytes"`
	Versions     map[string]string `json:"versions"`
	Caches       []CacheSnapshot   `json:"caches"`
	// FirstStepSeconds is the time from the start to the first line after the first
	// compilation that names a step or an epoch (-1 when none does).
	FirstStepSeconds float64 `json:"first_step_seconds"`
	// Launcher is what a launcher told the process about its rank (LauncherVars found in the
	// command's environment): empty when the run was not started by one.
	Launcher map[string]string `json:"launcher"`
	// DumpDir is the user's own dump folder (their XLA_FLAGS' --xla_dump_to, absolute), read in
	// place of dump/: recomp added no dump flag and removed nothing from it.
	DumpDir string `json:"dump_dir,omitempty"`
	// TraceDir is the user's own trace folder (a stack's trace variable they set, absolute),
	// read in place of the run folder's trace folder: its files written since Start are the
	// run's.
	TraceDir string `json:"trace_dir,omitempty"`
	// ProbeNote says the probe was asked for and did not load (python -I, -E, -S): why.
	ProbeNote string `json:"probe_note,omitempty"`
	// Running marks the manifest written when the command started: one still there when the
	// folder is read back says recomp was stopped (killed) before the run ended.
	Running bool `json:"running,omitempty"`
	// LogError is why run.log could not be written to the end (a full disk): what was written
	// before it stays; LogLostBytes were not written.
	LogError     string `json:"log_error,omitempty"`
	LogLostBytes int64  `json:"log_lost_bytes,omitempty"`
}

// manifestReserve is the room the manifest written when the command starts takes (padded with
// spaces), so that the final one can be written over it when the disk has filled up meanwhile.
const manifestReserve = 64 << 10

// WriteManifest writes m into the folder, atomically (a failed write leaves no truncated file;
// not synced: atomicfile.WriteUnsynced).
// When that fails (a full disk) and the folder holds a manifest at least as large (the one
// written at the start, with its reserve), m is written over it in place, padded with spaces.
func WriteManifest(dir string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	path := filepath.Join(dir, ManifestName)
	err = atomicfile.WriteUnsynced(path, b, 0o644)
	if err == nil {
		return nil
	}
	if st, serr := os.Lstat(path); serr == nil && st.Mode().IsRegular() && st.Size() >= int64(len(b)) {
		if f, oerr := os.OpenFile(path, os.O_WRONLY, 0); oerr == nil {
			pad := bytes.Repeat([]byte{' '}, int(st.Size())-len(b))
			_, werr := f.WriteAt(append(b, pad...), 0)
			if serr := f.Sync(); werr == nil {
				werr = serr
			}
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			if werr == nil {
				return nil
			}
		}
	}
	return err
}

// WriteStartManifest writes the manifest of a run that has started (Running), padded to
// manifestReserve bytes with spaces (JSON's white space). Not synced: the file system holds
// the reserve from the write on (ext4's and XFS's delayed allocation reserve the blocks then).
func WriteStartManifest(dir string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if len(b) < manifestReserve {
		padded := make([]byte, manifestReserve)
		for i := copy(padded, b); i < len(padded); i++ {
			padded[i] = ' '
		}
		b = padded
	}
	return atomicfile.WriteUnsynced(filepath.Join(dir, ManifestName), b, 0o644)
}

// MaxManifestBytes is the most ReadManifest reads: recomp writes a few KiB (at most 1000 names
// a cache folder).
const MaxManifestBytes = 16 << 20

// ReadManifest reads a folder's manifest.json: a regular file (a FIFO or a device in its place is
// an error, never a wait) of at most MaxManifestBytes.
func ReadManifest(path string) (*Manifest, error) {
	looks.manifests.Add(1)
	var m Manifest
	if err := openfile.ReadJSON(path, false, MaxManifestBytes, "a run folder's manifest", &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// CacheSnapshot is what an executable or persistent-cache folder held before and after the
// run: counts and names, never contents.
type CacheSnapshot struct {
	Dir        string   `json:"dir"`
	From       string   `json:"from"` // what names the folder (a variable, --cache)
	Before     int      `json:"before"`
	After      int      `json:"after"`
	Added      []string `json:"added"` // the first MaxListed names the run added
	AddedCount int      `json:"added_count"`
}

// MaxListed bounds the names a snapshot lists of what the run added.
const MaxListed = 1000

// Framework selects whose evidence is switched on: a stack's name (frameworks.Names), or
// FrameworkAuto for all of them.
type Framework string

// FrameworkAuto switches on every stack's evidence: a program may use several, and the others
// ignore them.
const FrameworkAuto Framework = "auto"

// DumpMode says which HLO modules XLA dumps into the run folder.
type DumpMode string

// Dump modes.
const (
	DumpBefore DumpMode = "before" // the modules before optimisation: what recomp compares; the folder stays small
	DumpAll    DumpMode = "all"    // everything XLA dumps
	DumpNone   DumpMode = "none"   // no dump
)

// Setting is one environment variable recomp run sets (or leaves as the user set it).
type Setting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	// Kept says the user had set it: recomp left the user's value (XLA_FLAGS is appended to).
	Kept bool `json:"kept,omitempty"`
	// Effect says what the setting costs or changes besides logging, when it does.
	Effect string `json:"effect,omitempty"`
	// Framework is the stack the setting is for ("" for every stack's: the dump, the probe).
	Framework string `json:"framework,omitempty"`
}

// Comparable is the setting's value without what names its own run folder, as two runs are
// compared: XLA_FLAGS without its dump flags (each run dumps into its own folder, and JAX
// leaves them out of its cache keys), PYTHONPATH without the probe's folder, and nothing of
// the probe's output file.
func (s Setting) Comparable() string {
	switch s.Name {
	case "XLA_FLAGS":
		var keep []string
		for _, f := range strings.Fields(s.Value) {
			if !strings.HasPrefix(f, "--xla_dump") {
				keep = append(keep, f)
			}
		}
		return strings.Join(keep, " ")
	case "PYTHONPATH":
		var keep []string
		for _, d := range filepath.SplitList(s.Value) {
			if filepath.Base(d) != ProbeDir {
				keep = append(keep, d)
			}
		}
		return strings.Join(keep, string(os.PathListSeparator))
	case ProbeOutVar:
		return ""
	case "TORCH_TRACE":
		if !s.Kept {
			return "" // recomp run's, into the run folder's trace/
		}
	}
	return s.Value
}

// LauncherVars are the variables through which launchers tell a process which rank of a job it
// is (torchrun, Open MPI's mpirun, MPICH/Intel MPI's PMI, Slurm's srun), in the order their rank is believed: a job-wide rank before a node-local one.
// recomp run records those it finds in the command's environment (Manifest.Launcher).
var LauncherVars = []string{
	"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID",
	"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID",
	"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS",
}

// rankVars are the LauncherVars that give a rank, job-wide ones first.
var rankVars = []string{"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID",
	"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"}

// LauncherEnv picks the LauncherVars out of an environment (NAME=value entries); never nil.
func LauncherEnv(env []string) map[string]string {
	out := map[string]string{}
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if ok && slices.Contains(LauncherVars, name) {
			out[name] = value
		}
	}
	return out
}

// Rank is the rank the launcher's environment gave the run, and the variable that gave it ("",
// "" when none did, or its value is not a number). A node-local rank is used only when no
// job-wide one is set.
func (m *Manifest) Rank() (rank, from string) {
	for _, v := range rankVars {
		if s, ok := m.Launcher[v]; ok {
			if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n >= 0 {
				return strconv.Itoa(n), v
			}
		}
	}
	return "", ""
}
