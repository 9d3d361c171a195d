package runner

import (
	"os"
	"path/filepath"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/runfolder"
)

// A session in a process recomp did not start (the pytest plugin's): the process asks for the
// run folder and the settings (Open), applies them to itself and loads the probe, then, when it
// is done, says how it ended (Close). The probe writes the stacks' log records into the folder's
// run.log (runfolder.ProbeLogVar) and its own records beside it, as under recomp run.

// Opened is what recomp session open prints as JSON: the folder, the probe's folder and the
// variables the process sets.
type Opened struct {
	Folder   string            `json:"folder"`
	Probe    string            `json:"probe"`
	Env      map[string]string `json:"env"`
	Settings []string          `json:"settings"`
	// Compiles are the probe's records that are each one compilation: their framework and
	// event.
	Compiles []ProbeEvent `json:"compiles"`
	// Quiet are the lines (regular expressions) recomp's own settings make the stacks print:
	// the probe keeps them in run.log only, off pytest's captured output.
	Quiet []string `json:"quiet"`
}

// ProbeEvent is a probe record's framework and event.
type ProbeEvent struct {
	Framework string `json:"framework"`
	Event     string `json:"event"`
}

// ProbeName is a probe record's framework and the program it names, and where the anonymous
// function it compiled is defined ("FILE:LINE", the file's base name; JAX's probe names a
// lambda's), "" for a named one.
type ProbeName struct {
	Framework string `json:"framework"`
	Name      string `json:"name"`
	Defined   string `json:"defined,omitempty"`
}

// Programs are the programs (module families, as the verdict names them) of probe records,
// one per record in order: what the pytest plugin matches its records to the verdict's
// programs with, knowing no stack's naming. A lambda's program is its family and where it is
// defined, as the verdict tells two lambdas of one module name apart (jit__lambda [t.py:7]).
func Programs(recs []ProbeName) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = frameworks.ProbeProgram(r.Framework, r.Name)
		if out[i] != "" && r.Defined != "" {
			out[i] = frameworks.LambdaProgram(out[i], r.Defined)
		}
	}
	return out
}

// OpenedEvents is an Opened that makes nothing and names only which probe records are
// compilations (for a process already under recomp run).
func OpenedEvents() Opened {
	out := Opened{Env: map[string]string{}, Settings: []string{}, Compiles: []ProbeEvent{}, Quiet: []string{}}
	for _, p := range frameworks.Probes() {
		if p.Compiles {
			out.Compiles = append(out.Compiles, ProbeEvent{p.Name, p.Event})
		}
	}
	return out
}

// OpenSession makes the run folder of opt with the probe (Prepare, then Open) and says what the
// process needs to turn the evidence on in itself; a session without a command is pytest's.
// Its settings are the ones whose lines the process's run.log can get (Readable): the native
// code's lines would only add to the process's own output (pytest's captured output).
func OpenSession(opt SessionOptions) (Opened, error) {
	if len(opt.Command) == 0 {
		opt.Command = []string{"pytest"}
	}
	opt.Probe = true
	out := OpenedEvents()
	ses, err := Prepare(opt)
	if err != nil {
		return out, err
	}
	ses.Settings = Readable(ses.Settings)
	vars, err := ses.Open()
	if err != nil {
		return out, err
	}
	dir, _ := filepath.Abs(ses.Dir)
	out.Folder, out.Probe, out.Env, out.Settings = dir, ses.ProbeDir(), vars, Describe(ses.Settings)
	for _, re := range QuietOf(ses.Settings).Lines {
		out.Quiet = append(out.Quiet, re.String())
	}
	return out, nil
}

// Open makes the session's folder as Prepare does, with the probe, the manifest written when
// the command starts and an empty run.log, and returns the variables the process sets: the
// evidence settings recomp would set (the user's own kept: absent here) and where the probe
// writes. The probe stays until Close.
func (s *Session) Open() (map[string]string, error) {
	abs, _ := filepath.Abs(s.Dir)
	logf, err := os.OpenFile(filepath.Join(abs, runfolder.LogName), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	logf.Close()
	if err := runfolder.WriteStartManifest(abs, s.startManifest()); err != nil {
		return nil, err
	}
	vars := map[string]string{}
	for _, st := range s.Settings {
		if !st.Kept {
			vars[st.Name] = st.Value
		}
	}
	if s.probe != nil {
		vars[runfolder.ProbeLogVar] = filepath.Join(abs, runfolder.LogName)
		if own := ProbeOwn(s.Settings); own != "" {
			vars[runfolder.ProbeOwnVar] = own
		}
	}
	return vars, nil
}

// Close ends the session of the folder dir that Open made: its manifest says the run ended at
// end with the exit code, the framework versions the probe found, the dump of the modules before
// optimisation pruned, and the probe removed.
func Close(dir string, exit int, end time.Time) (*runfolder.Manifest, error) {
	m, err := runfolder.ReadManifest(filepath.Join(dir, runfolder.ManifestName))
	if err != nil {
		return nil, err
	}
	recs, _ := runfolder.ReadProbe(dir)
	m.Versions = runfolder.ProbeVersions(recs)
	if m.Versions == nil {
		m.Versions = map[string]string{}
	}
	m.End, m.WallSeconds, m.ExitCode, m.Running = end.UTC(), end.Sub(m.Start).Seconds(), exit, false
	if st, err := os.Stat(filepath.Join(dir, runfolder.LogName)); err == nil {
		m.OutputBytes = st.Size()
	}
	if m.Dump == runfolder.DumpBefore && m.DumpDir == "" {
		PruneDump(filepath.Join(dir, runfolder.DumpName))
	} else if m.DumpDir == "" {
		DropEmptyDump(filepath.Join(dir, runfolder.DumpName))
	}
	(&Probe{Dir: filepath.Join(dir, runfolder.ProbeDir), Out: filepath.Join(dir, runfolder.ProbeName)}).Remove()
	return m, runfolder.WriteManifest(dir, m)
}

// ProbeDir is the folder of the session's probe ("" without one): its sitecustomize.py is what
// a process loads itself, and what goes first on its children's PYTHONPATH.
func (s *Session) ProbeDir() string {
	if s.probe == nil {
		return ""
	}
	return s.probe.Dir
}
