package torch

import (
	"encoding/json"
	"math"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/recomp/recomp/frameworks/internal/python"
	"github.com/recomp/recomp/logscan"
)

// torch's structured trace (TORCH_TRACE=DIR, what tlparse reads): glog lines whose message is
// one JSON object, some followed by a payload on tab-indented lines. recomp reads, without the
// payloads:
//
//	{"str": ["/w/train.py", 1]}                              a file name's index in the stacks
//	{"dynamo_start": {"stack": [{"line": 3, "name": "f", "filename": 1}, …]}, "frame_id": 0, …}
//	{"artifact": {"name": "fx_graph_cache_hit", "encoding": "json"}, "frame_id": 0, …}
//	{"compilation_metrics": {"compile_id": "0/1", "co_name": "f", "co_filename": …,
//	  "co_firstlineno": 3, "entire_frame_compile_time_s": 0.49, "backend_compile_time_s": …,
//	  "fail_type": …, "fail_reason": …, "recompile_reason": "0/0: tensor 'x' size mismatch …",
//	  "restart_reasons": [], …}, "frame_id": 0, "frame_compile_id": 1, "attempt": 0}
//
// Each compilation_metrics whose backend ran is one compilation, timed by its
// entire_frame_compile_time_s (dynamo's whole frame: tracing, AOTAutograd, Inductor); one that
// failed at the recompile limit is the limit reached. An FX-graph cache hit (Inductor's on-disk
// cache served the compiled graph; dynamo's frame still compiled, faster) is a cache hit, as
// torch's counters['inductor']['fxgraph_cache_hit'] counts it; the other lookups of Inductor's
// caches are the stack's metrics (cachetrace.go).
var (
	traceStr     = `{"str": ["`
	traceStart   = `{"dynamo_start": `
	traceMetrics = `{"compilation_metrics": `
)

// traceRules are the rules of the trace's records.
var traceRules = []logscan.Rule{
	{Prefix: traceMetrics, Handle: traceMetricsRecord},
	{Prefix: traceStart, Handle: traceStartRecord},
	{Prefix: traceStr, Handle: traceStrRecord},
	{Prefix: traceFXCache, Handle: cacheArtifact}, // Inductor's caches: cachetrace.go
	{Prefix: traceAOTCache, Handle: cacheArtifact},
}

// traceState is what the trace's records leave for later ones in one process.
type traceState struct {
	files map[int]string // {"str"} file names by index
	// user is, by frame id, the program's own line dynamo_start's stack ends in (the frame a
	// wrapper of torch's compiles for it: torch.compile of a Module compiles external_utils'
	// inner); names the frame's later records
	user map[int]string
	// named is, by frame id, the name of its last compilation (a failed one names no code)
	named map[int]string
	// caches counts the lookups of Inductor's caches (cachetrace.go)
	caches cacheCounts
}

const traceMaxNames = 4096

func traceOf(c *logscan.Context) *traceState {
	st := c.State().(*dynamo)
	if st.trace == nil {
		st.trace = &traceState{files: map[int]string{}, user: map[int]string{}, named: map[int]string{}}
	}
	return st.trace
}

func traceStrRecord(c *logscan.Context, msg string) bool {
	var rec struct {
		Str []json.RawMessage `json:"str"`
	}
	if json.Unmarshal([]byte(msg), &rec) != nil || len(rec.Str) != 2 {
		return false
	}
	var name string
	var idx int
	if json.Unmarshal(rec.Str[0], &name) != nil || json.Unmarshal(rec.Str[1], &idx) != nil {
		return false
	}
	if t := traceOf(c); len(t.files) < traceMaxNames {
		t.files[idx] = name
	}
	return true
}

type traceFrame struct {
	Line     int    `json:"line"`
	Name     string `json:"name"`
	Filename int    `json:"filename"`
}

func traceStartRecord(c *logscan.Context, msg string) bool {
	var rec struct {
		Start struct {
			Stack []traceFrame `json:"stack"`
		} `json:"dynamo_start"`
		FrameID *int `json:"frame_id"`
	}
	if json.Unmarshal([]byte(msg), &rec) != nil || rec.FrameID == nil {
		return false
	}
	t := traceOf(c)
	for i := len(rec.Start.Stack) - 1; i >= 0; i-- {
		f := rec.Start.Stack[i]
		if file, ok := t.files[f.Filename]; ok && python.IsUserFrame(file) && len(t.user) < traceMaxNames {
			t.user[*rec.FrameID] = path.Base(file) + ":" + strconv.Itoa(f.Line) + " (" + f.Name + ")"
			break
		}
	}
	return true
}

// traceMetricsRec is what recomp reads of a compilation_metrics record (nil: absent or null).
type traceMetricsRec struct {
	compileID                       string
	coName, coFilename              *string
	coFirstLineno                   *int
	entire, backend                 *float64
	failType, failReason, recompile *string
	restarts                        []string
	frameID, frameCompileID         *int
}

// traceField finds the value of key in a record's JSON (msg), at its top level or in
// compilation_metrics: the keys recomp reads occur nowhere else unescaped (dynamo_config, the one
// nested document, is a string whose quotes are escaped). It returns the raw JSON value, "" when
// the key is absent.
func traceField(msg, key string) string {
	k := `"` + key + `": `
	for from := 0; ; {
		i := strings.Index(msg[from:], k)
		if i < 0 {
			return ""
		}
		i += from
		from = i + len(k)
		if i > 0 && msg[i-1] == '\\' {
			continue
		}
		return jsonValue(msg[from:])
	}
}

// jsonValue is the JSON value at the start of s: a string with its quotes, a number, true,
// false, null, or an array of strings; "" when it is none of these.
func jsonValue(s string) string {
	if s == "" {
		return ""
	}
	switch s[0] {
	case '"':
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case '"':
				return s[:i+1]
			}
		}
		return ""
	case '[':
		depth := 0
		for i := 0; i < len(s); i++ {
			switch s[i] {
			case '"':
				v := jsonValue(s[i:])
				if v == "" {
					return ""
				}
				i += len(v) - 1
			case '[':
				depth++
			case ']':
				depth--
				if depth == 0 {
					return s[:i+1]
				}
			}
		}
		return ""
	}
	end := strings.IndexAny(s, ",}] ")
	if end < 0 {
		end = len(s)
	}
	return s[:end]
}

func jsonString(raw string) *string {
	var v string
	if raw == "" || raw == "null" || json.Unmarshal([]byte(raw), &v) != nil {
		return nil
	}
	return &v
}

func jsonInt(raw string) *int {
	n, err := strconv.Atoi(raw)
	if err != nil {
		return nil
	}
	return &n
}

func jsonFloat(raw string) *float64 {
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

// readMetrics reads a compilation_metrics record's fields without decoding the whole record (it
// holds dynamo's whole config: some 20 KB a compilation).
func readMetrics(msg string) (traceMetricsRec, bool) {
	var r traceMetricsRec
	id := jsonString(traceField(msg, "compile_id"))
	r.frameID = jsonInt(traceField(msg, "frame_id"))
	if id == nil || r.frameID == nil {
		return r, false
	}
	r.compileID = *id
	r.coName, r.coFilename = jsonString(traceField(msg, "co_name")), jsonString(traceField(msg, "co_filename"))
	r.coFirstLineno = jsonInt(traceField(msg, "co_firstlineno"))
	r.entire, r.backend = jsonFloat(traceField(msg, "entire_frame_compile_time_s")), jsonFloat(traceField(msg, "backend_compile_time_s"))
	r.failType, r.failReason = jsonString(traceField(msg, "fail_type")), jsonString(traceField(msg, "fail_reason"))
	r.recompile = jsonString(traceField(msg, "recompile_reason"))
	r.frameCompileID = jsonInt(traceField(msg, "frame_compile_id"))
	if raw := traceField(msg, "restart_reasons"); strings.HasPrefix(raw, "[") {
		_ = json.Unmarshal([]byte(raw), &r.restarts)
	}
	return r, true
}

// reReasonID is the compile id dynamo puts before a recompile reason ("0/0: ").
var reReasonID = regexp.MustCompile(`^\d+/\d+: `)

// traceMetricsRecord reads one compilation_metrics record: a compilation, the recompile limit,
// or a frame dynamo gave up on (nothing to count).
func traceMetricsRecord(c *logscan.Context, msg string) bool {
	m, ok := readMetrics(msg)
	if !ok {
		return false
	}
	t := traceOf(c)
	frame := t.user[*m.frameID]
	if m.coName != nil && m.coFilename != nil && (frame == "" || python.IsUserFrame(*m.coFilename)) {
		line := ""
		if m.coFirstLineno != nil {
			line = strconv.Itoa(*m.coFirstLineno)
		}
		frame = frameName(*m.coFilename, line, *m.coName)
	}
	if frame == "" {
		frame = t.named[*m.frameID]
	}
	if frame == "" {
		frame = unnamedLimit
	}
	if len(t.named) < traceMaxNames {
		t.named[*m.frameID] = frame
	}
	why := ""
	if m.recompile != nil {
		why = reReasonID.ReplaceAllString(strings.TrimSpace(*m.recompile), "")
	}
	fail := ""
	if m.failType != nil {
		fail = *m.failType
		if m.failReason != nil {
			fail += ": " + *m.failReason
		}
	}
	switch {
	case m.backend != nil:
		ev := logscan.Event{Kind: logscan.CompileBegin, Producer: logscan.ProducerDynamo, Signal: "dynamo:compilation_metrics",
			Module: frame, Path: frame, Reason: why, SeenBefore: m.frameCompileID != nil && *m.frameCompileID > 0,
			Detail: "dynamo compiled " + frame + " (compile " + m.compileID + ")"}
		if len(m.restarts) > 0 {
			ev.Detail += "; restarted: " + strings.Join(m.restarts, "; ")
		}
		c.Emit(ev)
		fin := logscan.Event{Kind: logscan.CompileFinished, Producer: ev.Producer, Signal: ev.Signal, Module: frame}
		if m.entire != nil && *m.entire >= 0 && *m.entire < 1e7 {
			fin.Duration = seconds(*m.entire)
		}
		c.Emit(fin)
	case strings.Contains(fail, "RecompileLimit") || strings.Contains(fail, "recompile_limit") || strings.Contains(fail, "cache_size_limit"):
		c.Emit(logscan.Event{Kind: logscan.FrameworkWarning, Producer: logscan.ProducerDynamo, Signal: "dynamo:recompile_limit",
			Module: frame, Detail: "dynamo reached its recompile limit for " + frame + " (" + fail + "): from then on, each call " +
				"whose inputs pass none of its compiled entries' guards runs eagerly (uncompiled), and is slow"})
	}
	return true
}

// seconds is a trace's seconds as a duration, to the microsecond it prints.
func seconds(s float64) time.Duration { return time.Duration(math.Round(s*1e6)) * time.Microsecond }
