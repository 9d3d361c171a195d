package logscan

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recomp/recomp/internal/lazyre"
)

var (
	reANSI = lazyre.New(`\x1b\[[0-9;?]*[A-Za-z]`)
	reMPI  = lazyre.New(`\[\d+,(\d+)\]<std(?:out|err)>:`)

	// reRecordStart and reRecordStartWord say whether a log record starts at a position inside
	// a physical line, so that records glued together (a tqdm bar followed by a log line,
	// several lines without newlines) are parsed one by one. They run only where recordStarts
	// found a clock (HH:MM:SS); the second pair must not follow a letter or digit.
	reRecordStart = lazyre.New(`^(?:\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}: [IWEF]` +
		`|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z ` +
		`|\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}\] \[` +
		`|\[\d{2}:\d{2}:\d{2}\.\d{3}\] \[poptorch)`)
	reRecordStartWord = lazyre.New(`^(?:[IWEF]\d{4} \d{2}:\d{2}:\d+\.\d{6} +-?\d+ ` +
		`|\d{2}:\d{2}:\d{2}\.\d{3} \d+ (?:P[OL]|POPRUN))`)
	// reAbslGlued is a whole absl prefix, up to its file:line], which may follow a digit: a
	// progress bar's last frame ("loss: 1.1589I0000 00:00:1795514674.274491   22776 …").
	reAbslGlued = lazyre.New(`^[IWEF]\d{4} \d{2}:\d{2}:\d+\.\d{6} +-?\d+ [^\s:\]]+:\d+\] `)

	reTFPrefix    = lazyre.New(`^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}): [IWEF](?: +(\d+))? ([^\s:\]]+):\d+\] `)
	reGCNewPrefix = lazyre.New(`^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6})Z (\S+) +\d+\.\d+ [TDIWEC]: `)
	reAbslPrefix  = lazyre.New(`^[IWEFV](\d{2})(\d{2}) (\d{2}:\d{2}:\d+\.\d{6}) +(-?\d+) ([^\s:\]]+):\d+\] `)
	// AWS Neuron's compiler wrapper (libneuronxla, torch-neuronx): "2024-04-12 07:13:06.000296:
	// 271334  INFO ||NEURON_CC_WRAPPER||: " (before 2.15 without the process id, ||NCC_WRAPPER||).
	reNeuronPrefix = lazyre.New(`^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}): +(?:\d+ +)?[A-Z]+ +\|\|[A-Z_]+\|\|: `)
	rePopARTOld    = lazyre.New(`^\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3})\] \[([^\]]+)\] \[[a-z]+\] `)
	// Python's logging: basicConfig's "LEVEL:logger:" and JAX's own handler
	// ("{levelname}:{asctime}:{name}:{lineno}: ", jax/_src/logging_config.py).
	rePyLogging     = lazyre.New(`^(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):(?:(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}),(\d{3}):)?([A-Za-z_][\w.]*):(?:\d+: )?`)
	rePopTorchPrefx = lazyre.New(`^\[(\d{2}:\d{2}:\d{2}\.\d{3})\] \[(poptorch[:a-z]*)\] \[[a-z]+\] `)
)

// header is what a record's prefix says about it.
type header struct {
	producer  Producer
	stamp     string
	t         time.Time
	dateKnown bool
	rank      string // the rank a launcher's prefix named
	own       bool   // the stamp is the record's own (its layout's), not a line prefix's
	thread    string // the thread id a glog/absl prefix names ("" when none)
}

// parseSegment parses one piece of a physical line; line is what the prefixes before the
// line's first piece said (its timestamp and rank hold where the piece has none of its own).
// It returns what this piece's own prefixes say.
func (s *Scanner) parseSegment(seg []byte, lineNo int, line header) header {
	seg, rank := s.clean(seg, lineNo)
	if len(seg) == 0 {
		return header{}
	}
	seg, own := stripOrchestrator(seg)
	if own.rank == "" {
		own.rank = rank
	}
	outer := own
	if outer.stamp == "" {
		outer.stamp, outer.t, outer.dateKnown = line.stamp, line.t, line.dateKnown
	}
	if outer.rank == "" {
		outer.rank = line.rank
	}
	if !s.use(outer.rank) {
		return own // a rank past MaxRanks: counted, not read
	}
	if s.richRecord(seg, outer, lineNo) || s.jsonRecord(seg, outer, lineNo) {
		return own
	}
	if s.g.whole {
		s.parseRecord(seg, outer, lineNo)
		return own
	}
	prev := 0
	for _, at := range recordStarts(seg, s.starts[:0]) {
		s.parseRecord(seg[prev:at], outer, lineNo)
		prev = at
	}
	s.parseRecord(seg[prev:], outer, lineNo)
	return own
}

// clean removes ANSI colour codes and mpirun tags and repairs invalid UTF-8; it returns the rank
// the first mpirun tag named.
func (s *Scanner) clean(seg []byte, lineNo int) ([]byte, string) {
	seg, rank := s.cleanQuiet(seg)
	if !utf8.Valid(seg) {
		if !s.utf8Warned {
			s.utf8Warned = true
			s.warn(lineNo, "invalid UTF-8: bad bytes replaced")
		}
		seg = bytes.ToValidUTF8(seg, []byte("\uFFFD"))
	}
	return seg, rank
}

// stripMPITags removes Open MPI's --tag-output tags ([jobid,rank]<stdout>:) and returns the
// rank of the first.
func stripMPITags(seg []byte) ([]byte, string) {
	m := reMPI.FindSubmatchIndex(seg)
	if m == nil {
		return seg, ""
	}
	rank := string(seg[m[2]:m[3]])
	return reMPI.ReplaceAll(seg, nil), rank
}

// Prefixes that orchestrators put before every line a program prints: a Kubernetes or Docker
// timestamp (kubectl logs --timestamps), a Slurm task label (srun --label), a torchrun rank
// ([rank3]: or [default0]:). mpirun's [1,3]<stderr>: tags are removed by clean. recomp's probe,
// writing a pytest --recomp session's run.log itself from every process, tags each line with
// its process ([pid 4242] ): the line's rank is then "pid 4242", which the ledger keeps when
// the probe's records show several processes (ledger.ReadOptions.Stages).
var (
	reK8sStamp = lazyre.New(`^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?)(Z|[+-]\d{2}:?\d{2}) `)
	reRank     = lazyre.New(`^\[(?:rank|default)?(\d+)\]:`)
	rePIDTag   = lazyre.New(`^\[pid ([1-9][0-9]{0,9})\] `)
)

// stripOrchestrator removes the prefixes orchestrators add, and returns the header their
// timestamp gives (used when the record has none of its own) and the rank they name.
func stripOrchestrator(seg []byte) ([]byte, header) {
	var h header
	for range 3 {
		switch {
		case len(seg) > 20 && seg[4] == '-' && seg[10] == 'T':
			m := reK8sStamp.FindSubmatch(seg)
			if m == nil {
				return seg, h
			}
			h.stamp = string(m[1]) + string(m[2])
			if t, err := time.Parse(time.RFC3339Nano, string(m[1])+normalizeZone(string(m[2]))); err == nil {
				h.t, h.dateKnown = t.UTC(), true
			}
			seg = seg[len(m[0]):]
		case len(seg) > 3 && seg[0] == '[':
			if m := rePIDTag.FindSubmatch(seg); m != nil {
				h.rank = "pid " + string(m[1])
				seg = seg[len(m[0]):]
				continue
			}
			m := reRank.FindSubmatch(seg)
			if m == nil {
				return seg, h
			}
			h.rank = trimZeros(m[1])
			seg = seg[len(m[0]):]
		case len(seg) > 2 && isDigit(seg[0]):
			n := slurmLabel(seg)
			if n == 0 {
				return seg, h
			}
			h.rank = trimZeros(seg[:n])
			seg = seg[n+2:]
		default:
			return seg, h
		}
	}
	return seg, h
}

// slurmLabel is the length of srun --label's rank at the start of seg (`^(\d{1,5}): `, read
// without the regexp engine: every TF record starts with a digit), 0 when there is none.
func slurmLabel(seg []byte) int {
	n := 0
	for n < len(seg) && n <= 5 && isDigit(seg[n]) {
		n++
	}
	if n == 0 || n > 5 || n+1 >= len(seg) || seg[n] != ':' || seg[n+1] != ' ' {
		return 0
	}
	return n
}

// trimZeros writes a rank number without leading zeros (srun pads its labels).
func trimZeros(b []byte) string {
	for len(b) > 1 && b[0] == '0' {
		b = b[1:]
	}
	return string(b)
}

func normalizeZone(z string) string {
	if len(z) == 5 { // +0100
		return z[:3] + ":" + z[3:]
	}
	return z
}

// clockOffsets are where a record prefix can start relative to the first digit of its clock:
// "2024-05-02 HH" and "2024-05-02THH" (-11), "[2024-05-02 HH" (-12), "I0502 HH" (-6),
// "[HH" (-1) and "HH" (0).
var clockOffsets = [...]int{12, 11, 6, 1, 0}

// recordStarts appends to out the positions after 0 where a new record starts in seg. It looks
// only around clocks (dd:dd:d), so a line with one prefix costs a few byte compares.
func recordStarts(seg []byte, out []int) []int {
	last := -1
	for from := 0; ; {
		j := bytes.IndexByte(seg[from:], ':')
		if j < 0 {
			return out
		}
		c := from + j
		from = c + 1
		if c < 2 || c+4 >= len(seg) || !isDigit(seg[c-2]) || !isDigit(seg[c-1]) ||
			!isDigit(seg[c+1]) || !isDigit(seg[c+2]) || seg[c+3] != ':' || !isDigit(seg[c+4]) {
			continue
		}
		hh := c - 2
		for _, off := range clockOffsets {
			at := hh - off
			if at <= 0 || at <= last {
				continue
			}
			if !mayStartRecord(seg, at) {
				continue
			}
			if reRecordStart.Match(seg[at:]) || (!isWordByte(seg[at-1]) && reRecordStartWord.Match(seg[at:])) ||
				(isDigit(seg[at-1]) && reAbslGlued.Match(seg[at:])) {
				out = append(out, at)
				last = at
				break
			}
		}
		from = c + 4
	}
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// mayStartRecord is a necessary condition for reRecordStart, reRecordStartWord or reAbslGlued to
// match at seg[at]: the bytes each of their alternatives fixes near its start ("dddd-" of a date,
// "dd:dd:dd.ddd " of a Poplar clock, '[', a severity letter). Most clocks in a line are not a
// record's start, and this spares the regexp engine for them.
func mayStartRecord(seg []byte, at int) bool {
	switch c := seg[at]; {
	case c == '[' || c == 'I' || c == 'W' || c == 'E' || c == 'F':
		return true
	case isDigit(c):
		return at+4 < len(seg) && seg[at+4] == '-' ||
			at+12 < len(seg) && seg[at+2] == ':' && seg[at+8] == '.' && seg[at+12] == ' '
	}
	return false
}

// tfPrefix matches reTFPrefix (TF's C++ logging, the commonest prefix of a TF log) without the
// regexp engine, which cost a quarter of the scan of a log dense in TF records. It returns the
// time stamp, the thread id (empty when the record names none), the source file and the length
// of the prefix; n is 0 when rec does not start with one. TestTFPrefixMatchesRegexp and FuzzTFPrefix hold it to the expression.
func tfPrefix(rec []byte) (stamp, thread, source []byte, n int) {
	const layout = "0000-00-00 00:00:00.000000"
	if len(rec) < len(layout)+3 {
		return nil, nil, nil, 0
	}
	for i := range len(layout) {
		if c := rec[i]; layout[i] == '0' && !isDigit(c) || layout[i] != '0' && c != layout[i] {
			return nil, nil, nil, 0
		}
	}
	i := len(layout)
	if rec[i] != ':' || rec[i+1] != ' ' {
		return nil, nil, nil, 0
	}
	switch rec[i+2] {
	case 'I', 'W', 'E', 'F':
	default:
		return nil, nil, nil, 0
	}
	i += 3
	// (?: +\d+)? then a space: the thread id, when the spaces and digits are followed by one
	j := i
	for j < len(rec) && rec[j] == ' ' {
		j++
	}
	k := j
	for k < len(rec) && isDigit(rec[k]) {
		k++
	}
	if j > i && k > j && k < len(rec) && rec[k] == ' ' {
		if src, end := tfSource(rec, k+1); end > 0 {
			return rec[:len(layout)], rec[j:k], src, end
		}
	}
	if i < len(rec) && rec[i] == ' ' {
		if src, end := tfSource(rec, i+1); end > 0 {
			return rec[:len(layout)], nil, src, end
		}
	}
	return nil, nil, nil, 0
}

// abslPrefix is reAbslPrefix's submatches (the prefix, month, day, clock, thread id, source
// file), read by hand: the regexp engine's cost on each glog record of a trace file was a fifth
// of reading it. TestAbslPrefixMatchesRegexp and FuzzAbslPrefix hold it to the expression.
func abslPrefix(rec []byte) [][]byte {
	if len(rec) < 12 || strings.IndexByte("IWEFV", rec[0]) < 0 || !digitsAt(rec, 1, 4) || rec[5] != ' ' ||
		!digitsAt(rec, 6, 2) || rec[8] != ':' || !digitsAt(rec, 9, 2) || rec[11] != ':' {
		return nil
	}
	j := skipDigits(rec, 12)
	if j == 12 || j >= len(rec) || rec[j] != '.' || !digitsAt(rec, j+1, 6) {
		return nil
	}
	clock := rec[6 : j+7]
	thread, src, end := abslThreadSource(rec, j+7)
	if end < 0 {
		return nil
	}
	return [][]byte{rec[:end], rec[1:3], rec[3:5], clock, thread, src}
}

// abslThreadSource reads the rest of an absl prefix from rec[j], after its clock: " +(-?\d+)
// ([^\s:\]]+):\d+\] ". end is the index after it, -1 when rec does not go on so.
func abslThreadSource(rec []byte, j int) (thread, src []byte, end int) {
	if j >= len(rec) || rec[j] != ' ' {
		return nil, nil, -1
	}
	for j < len(rec) && rec[j] == ' ' {
		j++
	}
	ts := j
	if j < len(rec) && rec[j] == '-' {
		j++
	}
	d := j
	if j = skipDigits(rec, j); j == d || j >= len(rec) || rec[j] != ' ' {
		return nil, nil, -1
	}
	thread = rec[ts:j]
	ss := j + 1
	for j = ss; j < len(rec) && strings.IndexByte("\t\n\f\r :]", rec[j]) < 0; j++ {
	}
	if j == ss || j >= len(rec) || rec[j] != ':' {
		return nil, nil, -1
	}
	src = rec[ss:j]
	d = j + 1
	if j = skipDigits(rec, d); j == d || j+1 >= len(rec) || rec[j] != ']' || rec[j+1] != ' ' {
		return nil, nil, -1
	}
	return thread, src, j + 2
}

// digitsAt says whether b holds n digits from i; skipDigits is the index after the digits from i.
func digitsAt(b []byte, i, n int) bool {
	return i+n <= len(b) && skipDigits(b[:i+n], i) == i+n
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

// pyLogging is rePyLogging's submatches, tried only where the record's second byte is no digit.
func pyLogging(rec []byte) [][]byte {
	if len(rec) < 2 || isDigit(rec[1]) {
		return nil
	}
	return rePyLogging.FindSubmatch(rec)
}

// gcNewPrefix and neuronPrefix are reGCNewPrefix's and reNeuronPrefix's submatches, tried only
// where the record starts as their dated layouts do.
func gcNewPrefix(rec []byte, dated bool) [][]byte {
	if !dated {
		return nil
	}
	return reGCNewPrefix.FindSubmatch(rec)
}

func neuronPrefix(rec []byte, dated bool) [][]byte {
	if !dated {
		return nil
	}
	return reNeuronPrefix.FindSubmatch(rec)
}

// gcOldPrefix matches the prefix of Poplar's and poprun's records,
// `^(\d{2}:\d{2}:\d{2}\.\d{3}) \d+ (P[OL](?::[A-Z]+)?|POPRUN) +\[[TDIWEC]\] `, without the regexp
// engine (the commonest prefix of a Poplar log): the stamp, the component and the length of the
// prefix; n is 0 when rec does not start with one. FuzzGCOldPrefix holds it to the expression.
func gcOldPrefix(rec []byte) (stamp, component []byte, n int) {
	const layout = "00:00:00.000 "
	if len(rec) < len(layout) {
		return nil, nil, 0
	}
	for i := range len(layout) {
		if c := rec[i]; layout[i] == '0' && !isDigit(c) || layout[i] != '0' && c != layout[i] {
			return nil, nil, 0
		}
	}
	i := len(layout)
	j := i
	for j < len(rec) && isDigit(rec[j]) {
		j++
	}
	if j == i || j >= len(rec) || rec[j] != ' ' {
		return nil, nil, 0
	}
	at := j + 1
	if end, n := gcComponent(rec, at); n > 0 {
		return rec[:len(layout)-1], rec[at:end], n
	}
	return nil, nil, 0
}

// gcComponent matches `(P[OL](?::[A-Z]+)?|POPRUN) +\[[TDIWEC]\] ` at rec[at:], trying what the
// alternation tries in its order: where the component ends and where the match ends (n 0: none).
func gcComponent(rec []byte, at int) (end, n int) {
	if at+1 < len(rec) && rec[at] == 'P' && (rec[at+1] == 'O' || rec[at+1] == 'L') {
		end := at + 2
		if end < len(rec) && rec[end] == ':' {
			k := end + 1
			for k < len(rec) && rec[k] >= 'A' && rec[k] <= 'Z' {
				k++
			}
			if n := gcLevel(rec, k); k > end+1 && n > 0 {
				return k, n
			}
		}
		if n := gcLevel(rec, end); n > 0 {
			return end, n
		}
	}
	if bytes.HasPrefix(rec[at:], []byte("POPRUN")) {
		if n := gcLevel(rec, at+6); n > 0 {
			return at + 6, n
		}
	}
	return 0, 0
}

// gcLevel matches ` +\[[TDIWEC]\] ` at rec[i:], returning where it ends (0: no match).
func gcLevel(rec []byte, i int) int {
	j := i
	for j < len(rec) && rec[j] == ' ' {
		j++
	}
	if j == i || j+4 > len(rec) || rec[j] != '[' || !strings.ContainsRune("TDIWEC", rune(rec[j+1])) || rec[j+2] != ']' || rec[j+3] != ' ' {
		return 0
	}
	return j + 4
}

// tfSource matches `([^\s:\]]+):\d+\] ` at rec[i:], returning the file and where the match ends
// (0: no match).
func tfSource(rec []byte, i int) ([]byte, int) {
	j := i
	for j < len(rec) {
		if c := rec[j]; c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ':' || c == ']' {
			break
		}
		j++
	}
	if j == i || j >= len(rec) || rec[j] != ':' {
		return nil, 0
	}
	k := j + 1
	for k < len(rec) && isDigit(rec[k]) {
		k++
	}
	if k == j+1 || k+1 >= len(rec) || rec[k] != ']' || rec[k+1] != ' ' {
		return nil, 0
	}
	return rec[i:j], k + 2
}

func isWordByte(b byte) bool {
	return isDigit(b) || b == '_' || (b|0x20 >= 'a' && b|0x20 <= 'z')
}

// parseRecord reads one record: its prefix (a known layout), then its message. A message
// that is not recognised where the prefix ends is looked for further in the record, so a
// framework's message is found whatever the program's own logging format put before it.
func (s *Scanner) parseRecord(rec []byte, outer header, lineNo int) {
	rec = bytes.TrimLeft(rec, " \t")
	if len(rec) == 0 {
		return
	}
	h, msg := s.parsePrefix(rec)
	msg = bytes.TrimSpace(msg)
	if len(msg) == 0 {
		return
	}
	h.own = h.stamp != ""
	if h.thread != "" {
		s.noteThread(h.thread)
	}
	if h.stamp == "" {
		h.stamp, h.t, h.dateKnown = outer.stamp, outer.t, outer.dateKnown
	}
	text := string(msg)
	if s.classify(text, h, lineNo) {
		return
	}
	tries := 0
	for _, head := range s.g.heads {
		for from := 1; from < len(text) && tries < maxGluedTries; {
			j := strings.Index(text[from:], head)
			if j < 0 {
				break
			}
			i := from + j
			from = i + 1
			if !gluedHead(text[i-1], head) {
				continue
			}
			tries++
			hh := h
			if hh.stamp == "" {
				hh = stampIn(text[:i], hh)
			}
			if s.classify(text[i:], hh, lineNo) {
				return
			}
		}
	}
	s.unread(text, lineNo)
}

// unread counts a message no rule read when it uses a framework's compile vocabulary: a
// compile record recomp cannot read (once per physical line).
func (s *Scanner) unread(msg string, lineNo int) {
	s.unreadBy(msg, lineNo, (*Vocabulary).Uses)
}

// unreadBy is unread with uses as the test of a framework's vocabulary. UnreadLines stay the
// first MaxUnread by line: the sweep (sweepRegion) finds its lines after the region's
// candidates.
func (s *Scanner) unreadBy(msg string, lineNo int, uses func(*Vocabulary, string) bool) {
	if lineNo == s.unreadAt || containsAny(msg, s.g.known) {
		return
	}
	for _, fw := range s.g.frameworks {
		if !uses(&fw.Vocabulary, msg) {
			continue
		}
		s.unreadAt = lineNo
		s.stats.Unread++
		ul := s.stats.UnreadLines
		i := len(ul)
		for i > 0 && ul[i-1].Line > lineNo {
			i--
		}
		if i < MaxUnread {
			if len(msg) > MaxUnreadText {
				msg = strings.ToValidUTF8(msg[:MaxUnreadText], "") + "…"
			}
			ul = slices.Insert(ul, i, UnreadLine{File: s.name, Line: lineNo, Framework: fw.Name, Text: msg})
			s.stats.UnreadLines = ul[:min(len(ul), MaxUnread)]
		}
		return
	}
}

// sweepRegion counts unread, among the lines of region that hold a sweep word and no anchor
// (swept, from the prefilter) and that were not part of a held record (s.heldAt), those
// whose message uses a framework's vocabulary in words of prose (Vocabulary.usesWords): a
// release's new wording with no anchor of any rule is not read as nothing. Only the vocabulary
// is tested, no rule; s.line is still the line of region's start.
func (s *Scanner) sweepRegion(region []byte, swept []span) {
	hi := 0
	counted, line := 0, s.line
	for _, sw := range swept {
		for hi < len(s.heldAt) && s.heldAt[hi] < sw.start {
			hi++
		}
		if hi < len(s.heldAt) && s.heldAt[hi] == sw.start {
			continue
		}
		line += bytes.Count(region[counted:sw.start], newline)
		counted = sw.start
		// each piece of a line redrawn with carriage returns, as parseLine reads them
		for seg := range bytes.SplitSeq(region[sw.start:sw.end], []byte{'\r'}) {
			if seg = bytes.TrimSpace(seg); len(seg) == 0 {
				continue
			}
			_, msg := s.parsePrefix(seg)
			if msg = bytes.TrimSpace(msg); len(msg) > 0 {
				s.unreadBy(string(msg), line, (*Vocabulary).usesWords)
			}
		}
	}
}

// maxGluedTries bounds the places inside one record where a message head is tried: each try
// reads the rest of the record, so without a bound a long line full of a head ("1Compiling "
// repeated over a megabyte) took time quadratic in its length.
const maxGluedTries = 8

// gluedHead says whether a message head found after byte prev can start a message there. A
// terminal's last progress-bar frame has no newline, so the next record may follow a digit or
// a bracket ("… 15/16TRACING CACHE MISS at …"); after a letter a head is part of a word
// ("Recompiling "), unless it is a word of capitals no text runs into.
func gluedHead(prev byte, head string) bool {
	if prev|0x20 >= 'a' && prev|0x20 <= 'z' || prev == '_' {
		return isShouted(head)
	}
	return true
}

// isShouted says whether a head starts with a word of at least four capitals.
func isShouted(head string) bool {
	n := 0
	for n < len(head) && head[n] >= 'A' && head[n] <= 'Z' {
		n++
	}
	return n >= 4 && (n == len(head) || head[n] == ' ')
}

var reAnyStamp = lazyre.New(`(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:[.,](\d{1,9}))?`)

// stampIn finds a date and time in the part of a record before its message (a logging format
// recomp does not know, such as '%(asctime)s %(levelname)s %(name)s: %(message)s').
func stampIn(prefix string, h header) header {
	m := reAnyStamp.FindStringSubmatch(prefix)
	if m == nil {
		return h
	}
	v := m[1] + "T" + m[2]
	if m[3] != "" {
		v += "." + m[3]
	}
	if t, err := time.Parse("2006-01-02T15:04:05.999999999", v); err == nil {
		h.stamp, h.t, h.dateKnown = m[0], t, true
	}
	return h
}

func (s *Scanner) parsePrefix(rec []byte) (header, []byte) {
	var h header
	switch c := rec[0]; {
	case c >= '0' && c <= '9':
		if stamp, thread, source, n := tfPrefix(rec); n > 0 {
			h.stamp = string(stamp)
			h.t, h.dateKnown = parseTime(stampLayout, h.stamp, true)
			h.producer, h.thread = producerFromSource(source, ProducerTF), s.threadID(thread)
			return h, rec[n:]
		}
		dated := len(rec) > 4 && rec[4] == '-' // what the dated layouts below need (the regexp engine's set-up costs)
		if m := gcNewPrefix(rec, dated); m != nil {
			h.stamp = string(m[1]) + "Z"
			h.t, h.dateKnown = parseTime("2006-01-02T15:04:05.000000", string(m[1]), true)
			h.producer = producerFromComponent(string(m[2]))
			return h, rec[len(m[0]):]
		}
		if stamp, component, n := gcOldPrefix(rec); n > 0 {
			h.stamp = string(stamp)
			h.t, h.dateKnown = parseTime("15:04:05.000", h.stamp, false)
			h.producer = producerFromComponent(string(component))
			return h, rec[n:]
		}
		if m := neuronPrefix(rec, dated); m != nil {
			h.stamp = string(m[1])
			h.t, h.dateKnown = parseTime(stampLayout, h.stamp, true)
			h.producer = ProducerNeuron
			return h, rec[len(m[0]):]
		}
	case c == 'D' || c == 'I' || c == 'W' || c == 'E' || c == 'C' || c == 'F' || c == 'V':
		// Python logging's level names a word ("INFO:"), absl/glog's a date ("I1202 "): the
		// regexp engine is spared the other's
		if m := pyLogging(rec); m != nil {
			if len(m[1]) > 0 {
				h.stamp = string(m[1]) + "." + string(m[2])
				h.t, h.dateKnown = parseTime("2006-01-02 15:04:05.000", h.stamp, true)
			}
			h.producer = s.g.loggerProducer(string(m[3]))
			return h, rec[len(m[0]):]
		}
		if m := abslPrefix(rec); m != nil {
			h.stamp = string(m[1]) + string(m[2]) + " " + string(m[3])
			h.t, h.dateKnown = parseAbslTime(string(m[1]), string(m[2]), string(m[3]))
			h.producer, h.thread = producerFromSource(m[5], ProducerXLA), s.threadID(m[4])
			return h, rec[len(m[0]):]
		}
	case c == '[':
		if m := rePopARTOld.FindSubmatch(rec); m != nil {
			h.stamp = string(m[1])
			h.t, h.dateKnown = parseTime("2006-01-02 15:04:05.000", h.stamp, true)
			h.producer = producerFromComponent(string(m[2]))
			return h, rec[len(m[0]):]
		}
		if m := rePopTorchPrefx.FindSubmatch(rec); m != nil {
			h.stamp = string(m[1])
			h.t, h.dateKnown = parseTime("15:04:05.000", h.stamp, false)
			h.producer = ProducerPopTorch
			return h, rec[len(m[0]):]
		}
	}
	return h, rec
}

func parseTime(layout, v string, withDate bool) (time.Time, bool) {
	if layout == stampLayout {
		if t, ok := stampTime(v); ok {
			return t, withDate
		}
	}
	t, err := time.Parse(layout, v)
	if err != nil {
		return time.Time{}, false
	}
	return t, withDate
}

// stampLayout is the time stamp of TF's C++ logging (and Neuron's).
const stampLayout = "2006-01-02 15:04:05.000000"

// stampTime reads a stamp in stampLayout as time.Parse does, without its general layout
// machinery (which cost a seventh of the parsing of a log dense in TF records); ok is false
// where time.Parse would fail. FuzzStampTime holds it to time.Parse.
func stampTime(v string) (time.Time, bool) {
	if len(v) != len(stampLayout) {
		return time.Time{}, false
	}
	for i := range len(stampLayout) {
		if c := v[i]; stampLayout[i] >= '0' && stampLayout[i] <= '9' {
			if !isDigit(c) {
				return time.Time{}, false
			}
		} else if c != stampLayout[i] && !(stampLayout[i] == '.' && c == ',') { // time.Parse takes either
			return time.Time{}, false
		}
	}
	num := func(at, n int) int {
		x := 0
		for _, c := range []byte(v[at : at+n]) {
			x = 10*x + int(c-'0')
		}
		return x
	}
	year, month, day := num(0, 4), num(5, 2), num(8, 2)
	hour, minute, sec, us := num(11, 2), num(14, 2), num(17, 2), num(20, 6)
	if month < 1 || month > 12 || day < 1 || day > 28 && day > daysIn(time.Month(month), year) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, us*1000, time.UTC), true
}

// daysIn is the number of days of a month of a (proleptic Gregorian) year.
func daysIn(m time.Month, year int) int {
	return time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// parseAbslTime reads an absl prefix time: MMDD HH:MM:SS.uuuuuu, or, before
// absl::InitializeLog, 0000 00:00:<unix seconds>.uuuuuu.
func parseAbslTime(mm, dd, clock string) (time.Time, bool) {
	if mm == "00" && dd == "00" {
		i := strings.LastIndexByte(clock, ':')
		secs, err := strconv.ParseFloat(clock[i+1:], 64)
		if err != nil {
			return time.Time{}, false
		}
		whole := int64(secs)
		return time.Unix(whole, int64((secs-float64(whole))*1e9)).UTC().Round(time.Microsecond), true
	}
	t, err := time.Parse("0102 15:04:05.000000", mm+dd+" "+clock)
	if err != nil {
		return time.Time{}, false
	}
	return t, false
}

// producerFromSource is the producer a glog/absl record's source path names (def when none); it
// reads the record's bytes, without making a string of them (an allocation a record).
func producerFromSource(path []byte, def Producer) Producer {
	switch {
	case bytes.Contains(path, []byte("plugin/poplar")):
		return ProducerTFIPU
	case bytes.HasPrefix(path, []byte("tensorflow/")):
		return ProducerTF
	case bytes.Contains(path, []byte("xla/")):
		return ProducerXLA
	}
	return def
}

func producerFromComponent(c string) Producer {
	switch {
	case strings.HasPrefix(c, "PO"):
		if c == "POPRUN" {
			return ProducerPoprun
		}
		return ProducerPoplar
	case strings.HasPrefix(c, "PL"):
		return ProducerPopLibs
	case strings.HasPrefix(c, "popart"):
		return ProducerPopART
	case strings.HasPrefix(c, "poptorch"):
		return ProducerPopTorch
	}
	return Producer(c)
}
