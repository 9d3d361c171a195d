package torch

import (
	"encoding/json"
	"math"
	"path"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recomp/recomp/frameworks/internal/python"
	"github.com/recomp/recomp/internal/lazyre"
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
// traceRecords are the trace's records recomp reads, each by its name (the key of the record's
// JSON object) or, for an artifact record, by the artifact's name: one line a record, from which
// the rules and the anchors of both grammars are made.
var traceRecords = []traceRecord{
	{Record: "compilation_metrics", Handle: traceMetricsRecord},
	{Record: "dynamo_start", Handle: traceStartRecord},
	{Record: "str", Handle: traceStrRecord},
	{Record: "create_symbol", Handle: traceSymbolRecord},
	// Inductor's caches, each lookup's result (cachetrace.go)
	{Artifact: "fx_graph_cache_hit", Handle: cacheArtifact},
	{Artifact: "fx_graph_cache_miss", Handle: cacheArtifact},
	{Artifact: "fx_graph_cache_bypass", Handle: cacheArtifact},
	{Artifact: "aotautograd_cache_hit", Handle: cacheArtifact},
	{Artifact: "aotautograd_cache_miss", Handle: cacheArtifact},
	{Artifact: "aotautograd_cache_bypass", Handle: cacheArtifact},
}

// traceRecord is one kind of the trace's records: Record names it ({"compilation_metrics": …}),
// or Artifact an artifact record's name ({"artifact": {"name": "fx_graph_cache_hit", …}, …}).
type traceRecord struct {
	Record, Artifact string
	Handle           func(c *logscan.Context, msg string) bool
}

// prefix is how the record's message begins.
func (r traceRecord) prefix() string {
	if r.Artifact != "" {
		return `{"artifact": {"name": "` + r.Artifact + `"`
	}
	return `{"` + r.Record + `": `
}

// traceRules are the rules of the trace's records.
var traceRules = func() []logscan.Rule {
	out := make([]logscan.Rule, len(traceRecords))
	for i, r := range traceRecords {
		out[i] = logscan.Rule{Prefix: r.prefix(), Handle: r.Handle}
	}
	return out
}()

// traceMessages is how recomp reads a trace file on its own (frameworks.TraceGrammar): its
// records' rules alone, anchored by how each begins.
var traceMessages = func() *logscan.Framework {
	f := &logscan.Framework{Name: Name, NewState: func() any { return &dynamo{} }, Rules: traceRules, Whole: true}
	for _, r := range traceRecords {
		f.Anchors = append(f.Anchors, r.prefix())
	}
	return f
}()

// traceState is what the trace's records leave for later ones in one process.
type traceState struct {
	files map[int]string // {"str"} file names by index
	// user is, by frame id, the program's own line dynamo_start's stack ends in (the frame a
	// wrapper of torch's compiles for it: torch.compile of a Module compiles external_utils'
	// inner); names the frame's later records
	user map[int]string
	// named is, by frame id, the name of its last compilation (a failed one names no code)
	named map[int]string
	// caller is, by frame id, the program's own line that called the frame its last
	// dynamo_start compiles (the last of its stack's user frames before the frame itself)
	caller map[int]string
	// limits counts, by function, the records of its recompile limit
	limits map[string]int
	// caches counts the lookups of Inductor's caches (cachetrace.go); lastMiss is the compile id
	// (after "id:") whose FX-graph miss was said last
	caches   cacheCounts
	lastMiss string
	saved    time.Duration // what AOTAutograd's hits saved, by its records
}

const traceMaxNames = 4096

func traceOf(c *logscan.Context) *traceState {
	st := c.State().(*dynamo)
	if st.trace == nil {
		st.trace = &traceState{files: map[int]string{}, user: map[int]string{}, named: map[int]string{}, caller: map[int]string{}}
	}
	return st.trace
}

func traceStrRecord(c *logscan.Context, msg string) bool {
	// {"str": ["/w/train.py", 1]}: read without reflection (a trace holds one for each file of
	// every stack dynamo records)
	var name *string
	var idx *int
	end := eachField(msg, func(k, raw string) {
		if k != "str" || len(raw) < 2 || raw[0] != '[' {
			return
		}
		i := skipSpace(raw, 1)
		e := skipValue(raw, i)
		if e < 0 {
			return
		}
		name = jsonString(raw[i:e])
		if i = skipSpace(raw, e); i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
			if e = skipValue(raw, i); e > 0 && skipSpace(raw, e) == len(raw)-1 {
				idx = jsonInt(raw[i:e])
			}
		}
	})
	if end < 0 || name == nil || idx == nil {
		return false
	}
	if t := traceOf(c); len(t.files) < traceMaxNames {
		t.files[*idx] = *name
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
	// The stack ends in the frame dynamo compiles; the program's own line before it called it,
	// through torch's frames (a Module's __call__, torch.compile's wrapper). Dynamo leaves the
	// direct caller of a compiled function out of the stack, with the wrapper (torch 2.9: the
	// caller's caller is the last frame before the function's): a user's frame right before the
	// compiled one is no caller. A frame keeps the name its first compilation gave it (a
	// wrapper's frame, called from a training line and an evaluation line, is one program).
	id := *rec.FrameID
	delete(t.caller, id)
	library := false // a frame of torch's passed, between the compiled frame and the caller
	for i := len(rec.Start.Stack) - 1; i >= 0; i-- {
		f := rec.Start.Stack[i]
		file, ok := t.files[f.Filename]
		if !ok || !python.IsUserFrame(file) {
			library = library || i < len(rec.Start.Stack)-1
			continue
		}
		at := path.Base(file) + ":" + strconv.Itoa(f.Line) + " (" + f.Name + ")"
		if _, named := t.user[id]; !named && len(t.user) < traceMaxNames {
			t.user[id] = at
		}
		if i < len(rec.Start.Stack)-1 {
			if library && len(t.caller) < traceMaxNames {
				t.caller[id] = at
			}
			break
		}
	}
	return true
}

// traceSymbolRecord reads a dimension a compilation made dynamic:
// {"create_symbol": {"symbol": "s27", "val": "6", "source": "L['ids'].size()[1]", …}, "frame_id": 0, "frame_compile_id": 1, …}.
func traceSymbolRecord(c *logscan.Context, msg string) bool {
	var rec struct {
		Symbol struct {
			Source string `json:"source"`
		} `json:"create_symbol"`
		FrameID      *int `json:"frame_id"`
		FrameCompile *int `json:"frame_compile_id"`
	}
	if json.Unmarshal([]byte(msg), &rec) != nil || rec.FrameID == nil || rec.FrameCompile == nil {
		return false
	}
	c.State().(*dynamo).symbolFor(strconv.Itoa(*rec.FrameID)+"/"+strconv.Itoa(*rec.FrameCompile), rec.Symbol.Source)
	return true
}

// reSymbolSource is an input's size a symbol stands for: L['ids'].size()[1].
var reSymbolSource = lazyre.New(`^(.+?)\.size\(\)\[(\d+)\]$`)

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

// eachField calls f with each key of the JSON object at the start of s (its name, unquoted:
// the trace's keys hold no escapes) and its value's raw JSON, in one pass: a nested value is
// skipped whole, its strings with their escapes (a compilation_metrics record holds dynamo's and
// Inductor's whole config as strings: some 20 KB). It returns the index just past the object,
// -1 when s is no such object (f saw the fields before the fault).
func eachField(s string, f func(key, raw string)) int {
	i := skipSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return -1
	}
	return fieldsFrom(s, skipSpace(s, i+1), f)
}

// fieldsFrom is eachField from s[i], the first key of an object or the '}' that closes it.
func fieldsFrom(s string, i int, f func(key, raw string)) int {
	return fieldsUntil(s, i, func(key, raw string) bool { f(key, raw); return true })
}

// fieldsUntil is fieldsFrom while f says more: -1 where it stopped.
func fieldsUntil(s string, i int, f func(key, raw string) bool) int {
	for i < len(s) {
		if s[i] == '}' {
			return i + 1
		}
		end := skipValue(s, i)
		if s[i] != '"' || end < 0 {
			return -1
		}
		key := s[i+1 : end-1]
		i = skipSpace(s, end)
		if i >= len(s) || s[i] != ':' {
			return -1
		}
		i = skipSpace(s, i+1)
		end = skipValue(s, i)
		if end < 0 {
			return -1
		}
		if !f(key, s[i:end]) {
			return -1
		}
		i = skipSpace(s, end)
		if i < len(s) && s[i] == ',' {
			i = skipSpace(s, i+1)
		} else if i >= len(s) || s[i] != '}' {
			return -1
		}
	}
	return -1
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
		i++
	}
	return i
}

// skipValue is the index just past the JSON value at s[i] (a string, an object or array with
// all they hold, a number or literal), -1 when there is none or it is not closed.
func skipValue(s string, i int) int {
	if i >= len(s) {
		return -1
	}
	switch s[i] {
	case '"':
		// the next quote no backslash escapes (an even run of them before it)
		for j := i + 1; ; j++ {
			k := strings.IndexByte(s[j:], '"')
			if k < 0 {
				return -1
			}
			j += k
			b := j - 1
			for b > i && s[b] == '\\' {
				b--
			}
			if (j-1-b)%2 == 0 {
				return j + 1
			}
		}
	case '{', '[':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"':
				end := skipValue(s, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(s) && strings.IndexByte(",}] \t\r\n", s[j]) < 0 {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

func jsonString(raw string) *string {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' && strings.IndexByte(raw, '\\') < 0 {
		if v := raw[1 : len(raw)-1]; utf8.ValidString(v) && strings.IndexByte(v, '"') < 0 {
			return &v // nothing escaped
		}
	}
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

// readMetrics reads a compilation_metrics record's fields without decoding the rest (it holds
// dynamo's and Inductor's whole config as strings: some 20 KB a compilation): the metrics up to
// the last of those it reads that come before the configs, then the three that come after them
// found from the record's end (lastField), else, where one is not there, in one pass over all
// (readMetricsWhole).
func readMetrics(msg string) (traceMetricsRec, bool) {
	body, ok := strings.CutPrefix(msg, metricsPrefix)
	reason, frame, frameCompile := lastField(msg, "recompile_reason"), lastField(msg, "frame_id"), lastField(msg, "frame_compile_id")
	if !ok || reason == "" || frame == "" || frameCompile == "" {
		return readMetricsWhole(msg)
	}
	var m metricsReader
	fieldsUntil(body, skipSpace(body, 1), func(k, raw string) bool { m.field(k, raw); return m.early < metricsEarly })
	m.r.recompile, m.r.frameID, m.r.frameCompileID = jsonString(reason), jsonInt(frame), jsonInt(frameCompile)
	return m.done()
}

// readMetricsWhole is readMetrics in one pass over the whole record: the record's own fields
// follow its metrics.
func readMetricsWhole(msg string) (traceMetricsRec, bool) {
	var m metricsReader
	body, ok := strings.CutPrefix(msg, metricsPrefix)
	end := eachField(body, m.field)
	if !ok || end < 0 {
		return m.r, false
	}
	rest := body[end:]
	if i := skipSpace(rest, 0); i < len(rest) && rest[i] == ',' {
		fieldsFrom(rest, skipSpace(rest, i+1), func(k, raw string) {
			switch k {
			case "frame_id":
				m.r.frameID = jsonInt(raw)
			case "frame_compile_id":
				m.r.frameCompileID = jsonInt(raw)
			}
		})
	}
	return m.done()
}

const metricsPrefix = `{"compilation_metrics": `

// metricsEarly is how many of the fields metricsReader reads come before the configs.
const metricsEarly = 9

// metricsReader reads the fields of a compilation_metrics object.
type metricsReader struct {
	r     traceMetricsRec
	id    *string
	early int // the fields read of those before the configs
}

func (m *metricsReader) field(k, raw string) {
	switch k {
	case "compile_id":
		m.id = jsonString(raw)
	case "co_name":
		m.r.coName = jsonString(raw)
	case "co_filename":
		m.r.coFilename = jsonString(raw)
	case "co_firstlineno":
		m.r.coFirstLineno = jsonInt(raw)
	case "entire_frame_compile_time_s":
		m.r.entire = jsonFloat(raw)
	case "backend_compile_time_s":
		m.r.backend = jsonFloat(raw)
	case "fail_type":
		m.r.failType = jsonString(raw)
	case "fail_reason":
		m.r.failReason = jsonString(raw)
	case "restart_reasons":
		if strings.HasPrefix(raw, "[") {
			_ = json.Unmarshal([]byte(raw), &m.r.restarts)
		}
	case "recompile_reason":
		m.r.recompile = jsonString(raw)
		return
	default:
		return
	}
	m.early++
}

func (m *metricsReader) done() (traceMetricsRec, bool) {
	if m.id == nil || m.r.frameID == nil {
		return m.r, false
	}
	m.r.compileID = *m.id
	return m.r, true
}

// lastField is the raw JSON value of the last key of that name in a record, searched from its
// end ("" when there is none): a key of the record's own objects is the only unescaped quote,
// name and quote in a row (inside a string, such as the configs, the quotes are escaped).
func lastField(msg, key string) string {
	k := `"` + key + `": `
	for end := len(msg); ; {
		i := strings.LastIndex(msg[:end], k)
		if i < 0 {
			return ""
		}
		if i == 0 || msg[i-1] != '\\' {
			at := i + len(k)
			if e := skipValue(msg, at); e > 0 {
				return msg[at:e]
			}
			return ""
		}
		end = i
	}
}

// topField is the raw JSON value of key at the top level of the record msg ("" when absent).
func topField(msg, key string) string {
	v := ""
	eachField(msg, func(k, raw string) {
		if k == key && v == "" {
			v = raw
		}
	})
	return v
}

// reReasonID is the compile id dynamo puts before a recompile reason ("0/0: ").
var reReasonID = lazyre.New(`^\d+/\d+: `)

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
			Module: frame, Path: frame, Reason: why, SeenBefore: m.frameCompileID != nil && *m.frameCompileID > 0, Key: m.compileID,
			Caller: t.caller[*m.frameID], Dynamic: c.State().(*dynamo).dynamicOf(m.compileID),
			Detail: "dynamo compiled " + frame + " (compile " + m.compileID + ")"}
		if len(m.restarts) > 0 {
			ev.Detail += "; restarted: " + strings.Join(m.restarts, "; ")
		}
		c.Emit(ev)
		fin := logscan.Event{Kind: logscan.CompileFinished, Producer: ev.Producer, Signal: ev.Signal, Module: frame, Key: m.compileID}
		if m.entire != nil && *m.entire >= 0 && *m.entire < 1e7 {
			fin.Duration = seconds(*m.entire)
		}
		c.Emit(fin)
	case strings.Contains(fail, "RecompileLimit") || strings.Contains(fail, "recompile_limit") || strings.Contains(fail, "cache_size_limit"):
		c.Emit(logscan.Event{Kind: logscan.FrameworkWarning, Producer: logscan.ProducerDynamo, Signal: "dynamo:recompile_limit",
			Module: frame, Key: m.compileID, Detail: limitDetail(frame, fail, t.limited(frame))})
	}
	return true
}

// limited counts a record of frame's recompile limit: how many the trace holds of it, each a
// call that reached the limit and ran eagerly (dynamo 2.9 records the first alone).
func (t *traceState) limited(frame string) int {
	if t.limits == nil {
		t.limits = map[string]int{}
	}
	n := t.limits[frame]
	if n > 0 || len(t.limits) < traceMaxNames {
		t.limits[frame] = n + 1
	}
	return n + 1
}

// seconds is a trace's seconds as a duration, to the microsecond it prints.
func seconds(s float64) time.Duration { return time.Duration(math.Round(s*1e6)) * time.Microsecond }
