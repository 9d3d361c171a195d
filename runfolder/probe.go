package runfolder

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/recomp/recomp/internal/openfile"
)

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
	// Model names the Keras model a call was made on (keras: *_begin; its id in the process): the
	// calls of one model run its steps.
	Model string `json:"model,omitempty"`
	// Data names the kind of data a Keras call was given when it is a framework's dataset
	// (keras: *_begin; "tf.data"), "" for arrays and the rest.
	Data string `json:"data,omitempty"`
	// Versions are the framework distributions' versions (python: versions, written at exit).
	Versions map[string]string `json:"versions,omitempty"`
	// ProcessIndex and ProcessCount are JAX's jax.process_index() and jax.process_count() at a
	// compilation of a job of several processes (jax: compile; ProcessCount 0 otherwise).
	ProcessIndex int `json:"process_index,omitempty"`
	ProcessCount int `json:"process_count,omitempty"`
	// Static are the static arguments a JAX trace of a jitted function was called with (jax:
	// trace; static_argnums and static_argnames), each value as Python's repr, cut short.
	Static []StaticArg `json:"static,omitempty"`
	// Shapes are the dtype and shape of each array a JAX trace of a jitted function was called
	// with, as JAX's log prints them ("float32[8,16]"; jax: trace, the first 32).
	Shapes []string `json:"shapes,omitempty"`
	// Step, Compiles, Loader and CompileNS count a PyTorch/XLA process's steps (torch-xla: sync,
	// epoch, steps): the step a sync record ends (1 for the first), or the steps ended before
	// an epoch began or the program exited; torch_xla's count of compilations after it; the id
	// of the dataset of the data loader iterated (epoch); each compilation's duration in nanoseconds, in
	// order (steps).
	Step      int     `json:"step,omitempty"`
	Compiles  int     `json:"compiles,omitempty"`
	Loader    string  `json:"loader,omitempty"`
	CompileNS []int64 `json:"compile_ns,omitempty"`
	// Loaders are, at exit (torch-xla: steps), the steps that ended while each data loader's batch
	// (by its dataset's id, as Loader) was the last one given: the training loop's loader has them.
	Loaders map[string]int `json:"loaders,omitempty"`
	// Grad is, on a sync record (torch-xla), whether autograd was on when the step that compiled
	// ended, and on a compile record (torch), when the frame compiled (torch.is_grad_enabled():
	// false under torch.no_grad or inference_mode, a scoring or evaluation loop); nil when the
	// probe did not say.
	Grad *bool `json:"grad,omitempty"`
	// Code is, on a compile record (torch) whose Name is the program's line that first called a
	// frame of torch's own (torch.compile of a Module compiles external_utils' inner), that
	// frame as the log names it; "" otherwise.
	Code string `json:"code,omitempty"`
}

// StaticArg is one static argument of a traced call: its parameter's name and its value's repr.
type StaticArg struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ProcessIndex is the process index of a job of several processes the probe's records give
// (JAX's jax.process_index() at its compilations), and whether they give one.
func ProcessIndex(recs []ProbeRecord) (int, bool) {
	for _, r := range recs {
		if r.ProcessCount > 1 && r.ProcessIndex >= 0 && r.ProcessIndex < r.ProcessCount {
			return r.ProcessIndex, true
		}
	}
	return 0, false
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

// maxProbeRecords bounds the records ReadProbe keeps (after folding repeated calls): 280 bytes
// each and their strings, under 40 MB in all. A probe writes three records a JAX compilation
// (trace, lower, compile), two a front end's call and one a step that compiled, so a run
// reaches it only by compiling some 16 000 times.
const maxProbeRecords = 50_000

// ReadProbe reads what the probe wrote in a run folder: nil, nil when it wrote nothing; an error
// when probe.jsonl is not a regular file (a FIFO or a device is never read). Lines that are not
// records (a run cut while writing one, a line over 1 MiB) are skipped: the others still count.
// It is ReadProbeCounted without the count of the records left out.
func ReadProbe(dir string) ([]ProbeRecord, error) {
	recs, _, err := ReadProbeCounted(dir)
	return recs, err
}

// ReadProbeCounted is ReadProbe that also says how many records it left out: those past the
// first maxProbeRecords kept (they are counted, not parsed). Memory is bounded whatever the
// file holds. A front end's call (a Keras METHOD_begin and its METHOD_end) that repeats the one
// before it exactly, with no other record between them (a predict() per request), is kept as
// that call going on until its end: attached to compilations by its time span, one call or a
// thousand identical ones in a row attach the same compilations, the ones the probe recorded
// between them keeping them apart.
func ReadProbeCounted(dir string) ([]ProbeRecord, int, error) {
	looks.probes.Add(1)
	f, _, err := openfile.Open(filepath.Join(dir, ProbeName), false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	var k probeKeeper
	br := bufio.NewReaderSize(f, 64<<10)
	var line []byte
	skip := false // the line is over maxProbeLine: the rest of it is dropped too
	for {
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
			k.line(line)
		}
		line, skip = line[:0], false
		if err == io.EOF {
			return k.done(), k.left, nil
		}
		if err != nil {
			return k.done(), k.left, err
		}
	}
}

// probeKeeper keeps the records ReadProbeCounted reads: repeated calls folded, strings shared,
// at most maxProbeRecords.
type probeKeeper struct {
	out  []ProbeRecord
	held *ProbeRecord // a call's begin that repeats the call before it, until its end is read
	left int
	str  map[string]string
	// The last call's begin and end lines without their time ("t"), and their records: a line
	// that is one of them again is that record at its own time, without decoding it (a loop of
	// a million calls reads fast).
	begin, end       []byte
	beginRec, endRec ProbeRecord
}

// line keeps the record of one line of probe.jsonl (a line that is no record is skipped; past
// maxProbeRecords, a record is counted, not parsed, but for the versions).
func (k *probeKeeper) line(line []byte) {
	if k.full() && !bytes.Contains(line, []byte(`"versions"`)) {
		if len(bytes.TrimSpace(line)) > 0 {
			k.left++
		}
	} else if r, ok := k.again(line); ok {
		k.add(r)
	} else {
		var r ProbeRecord
		if json.Unmarshal(line, &r) == nil && r.Event != "" {
			k.add(r)
			k.remember(line, r)
		}
	}
}

// again returns the record of line when line is the last call's begin or end line again, but
// for its time.
func (k *probeKeeper) again(line []byte) (ProbeRecord, bool) {
	if k.begin == nil {
		return ProbeRecord{}, false
	}
	key, t, ok := untimed(line)
	switch {
	case !ok:
		return ProbeRecord{}, false
	case bytes.Equal(key, k.begin):
		r := k.beginRec
		r.T = t
		return r, true
	case bytes.Equal(key, k.end):
		r := k.endRec
		r.T = t
		return r, true
	}
	return ProbeRecord{}, false
}

// remember keeps the line of a call's begin or end record decoded, for again.
func (k *probeKeeper) remember(line []byte, r ProbeRecord) {
	if r.hasLists() {
		return
	}
	key, _, ok := untimed(line)
	switch {
	case !ok:
	case strings.HasSuffix(r.Event, "_begin"):
		k.begin, k.beginRec = append(k.begin[:0], key...), r
		k.end = nil // the end that follows is this call's
	case strings.HasSuffix(r.Event, "_end") && k.begin != nil:
		k.end, k.endRec = append(k.end[:0], key...), r
	}
}

// untimed is a record's line without its "t" member (and its time): the rest of the record.
func untimed(line []byte) (key []byte, t float64, ok bool) {
	line = bytes.TrimRight(line, "\r\n")
	i := bytes.Index(line, []byte(`"t":`))
	if i < 0 || bytes.Count(line, []byte(`"t":`)) != 1 {
		return nil, 0, false
	}
	j := i + len(`"t":`)
	e := j
	for e < len(line) && line[e] != ',' && line[e] != '}' {
		e++
	}
	t, err := strconv.ParseFloat(string(bytes.TrimSpace(line[j:e])), 64)
	if err != nil {
		return nil, 0, false
	}
	return append(line[:i:i], line[e:]...), t, true
}

func (k *probeKeeper) full() bool { return len(k.out) >= maxProbeRecords }

func (k *probeKeeper) add(r ProbeRecord) {
	if k.held != nil {
		if n := len(k.out); isEnd(r, *k.held) && n > 0 {
			k.out[n-1].T = r.T // the call before goes on to this one's end
			k.held = nil
			return
		}
		k.keep(*k.held) // something else was recorded within the call: it is a call of its own
		k.held = nil
	}
	if n := len(k.out); n >= 2 && strings.HasSuffix(r.Event, "_begin") && sameCall(k.out[n-2], r) && isEnd(k.out[n-1], r) {
		k.held = &r
		return
	}
	k.keep(r)
}

func (k *probeKeeper) keep(r ProbeRecord) {
	if k.full() {
		if r.Framework == "python" && r.Event == "versions" && r.Versions != nil {
			k.out[len(k.out)-1] = r // the versions, written at exit, stand for the last record kept
		}
		k.left++
		return
	}
	if k.str == nil {
		k.str = map[string]string{}
	}
	for _, s := range []*string{&r.Framework, &r.Event, &r.Name, &r.File, &r.Function, &r.Model, &r.Data, &r.Loader} {
		if v, ok := k.str[*s]; ok {
			*s = v
		} else if len(k.str) < 4096 {
			k.str[*s] = *s
		}
	}
	k.out = append(k.out, r)
}

func (k *probeKeeper) done() []ProbeRecord {
	if k.held != nil { // the last call never ended
		k.keep(*k.held)
		k.held = nil
	}
	return k.out
}

// hasLists says whether a record holds lists or maps, which no record is compared by.
func (r *ProbeRecord) hasLists() bool {
	return r.Static != nil || r.Shapes != nil || r.Versions != nil || r.CompileNS != nil || r.Loaders != nil
}

// sameCall says whether two call begins are the same call made again: all but the time.
func sameCall(a, b ProbeRecord) bool {
	if a.hasLists() || b.hasLists() {
		return false
	}
	return a.Framework == b.Framework && a.Event == b.Event && a.Seconds == b.Seconds && a.Name == b.Name && a.File == b.File &&
		a.Line == b.Line && a.Function == b.Function && a.PID == b.PID && a.Samples == b.Samples && a.BatchSize == b.BatchSize &&
		a.Model == b.Model && a.Data == b.Data && a.ProcessIndex == b.ProcessIndex && a.ProcessCount == b.ProcessCount &&
		a.Step == b.Step && a.Compiles == b.Compiles && a.Loader == b.Loader
}

// isEnd says whether end is the end record of the call begin began.
func isEnd(end, begin ProbeRecord) bool {
	method, ok := strings.CutSuffix(begin.Event, "_begin")
	return ok && end.Event == method+"_end" && end.Framework == begin.Framework && end.PID == begin.PID
}

// maxProbeLine bounds one record: the probe writes a few hundred bytes a line.
const maxProbeLine = 1 << 20

// ProbeTail reads the records the probe appends to a run folder's probe.jsonl while the run
// goes on (recomp run's live lines): each Next gives the whole records written since the last.
// It reads what ReadProbe reads, under the same rules (a regular file only; a line over 1 MiB
// or not a record is skipped), and keeps at most one partial line between calls.
type ProbeTail struct {
	path    string
	f       *os.File
	off     int64
	partial []byte
	skip    bool // the partial line is over maxProbeLine: dropped to its end
	failed  bool // probe.jsonl is not a regular file: never read
	err     error
}

// NewProbeTail follows the probe records of the run folder dir.
func NewProbeTail(dir string) *ProbeTail { return &ProbeTail{path: filepath.Join(dir, ProbeName)} }

// Next returns the records completed since the last call (none while the probe wrote none).
func (t *ProbeTail) Next() []ProbeRecord {
	var out []ProbeRecord
	t.read(func(line []byte) bool {
		var r ProbeRecord
		if json.Unmarshal(line, &r) == nil && r.Event != "" {
			out = append(out, r)
		}
		return len(out) < maxProbeRecords
	})
	return out
}

// read gives each whole line written since the last call to line (a line over maxProbeLine is
// skipped), until line says false or the file's end is reached.
func (t *ProbeTail) read(line func([]byte) bool) {
	if t.failed {
		return
	}
	if t.f == nil {
		f, _, err := openfile.Open(t.path, false)
		if err != nil {
			t.failed = !errors.Is(err, fs.ErrNotExist)
			t.err = err
			return
		}
		t.f, t.err = f, nil
	}
	buf := make([]byte, 64<<10)
	for more := true; more; {
		n, err := t.f.ReadAt(buf, t.off)
		t.off += int64(n)
		for chunk := buf[:n]; len(chunk) > 0; {
			i := bytes.IndexByte(chunk, '\n')
			piece := chunk
			if i >= 0 {
				piece = chunk[:i+1]
			}
			chunk = chunk[len(piece):]
			if !t.skip && len(t.partial)+len(piece) > maxProbeLine {
				t.skip, t.partial = true, t.partial[:0]
			}
			if !t.skip {
				t.partial = append(t.partial, piece...)
			}
			if i < 0 {
				break
			}
			if !t.skip {
				more = line(t.partial) && more
			}
			t.partial, t.skip = t.partial[:0], false
		}
		if err != nil || n < len(buf) {
			return
		}
	}
}

// Close ends the tail.
func (t *ProbeTail) Close() error {
	if t.f == nil {
		return nil
	}
	return t.f.Close()
}
