package runfolder

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
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
// when probe.jsonl is not a regular file (a FIFO or a device is never read). Lines that are not
// records (a run cut while writing one, a line over 1 MiB) are skipped: the others still count.
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
