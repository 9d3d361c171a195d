package logscan

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

var (
	reANSI = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)
	reMPI  = regexp.MustCompile(`\[\d+,\d+\]<std(?:out|err)>:`)

	// rePrefixStart finds where a log record starts inside a physical line, so that records
	// glued together (a tqdm bar followed by a log line, several lines without newlines) are
	// parsed one by one.
	rePrefixStart = regexp.MustCompile(`\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}: [IWEF]` +
		`|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z ` +
		`|\b[IWEF]\d{4} \d{2}:\d{2}:\d+\.\d{6} +-?\d+ ` +
		`|\b\d{2}:\d{2}:\d{2}\.\d{3} \d+ (?:P[OL]|POPRUN)` +
		`|\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}\] \[` +
		`|\[\d{2}:\d{2}:\d{2}\.\d{3}\] \[poptorch`)

	reTFPrefix      = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}): [IWEF](?: +\d+)? ([^\s:\]]+):\d+\] `)
	reGCNewPrefix   = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6})Z (\S+) +\d+\.\d+ [TDIWEC]: `)
	reAbslPrefix    = regexp.MustCompile(`^[IWEF](\d{2})(\d{2}) (\d{2}:\d{2}:\d+\.\d{6}) +-?\d+ ([^\s:\]]+):\d+\] `)
	reGCOldPrefix   = regexp.MustCompile(`^(\d{2}:\d{2}:\d{2}\.\d{3}) \d+ (P[OL](?::[A-Z]+)?|POPRUN) +\[[TDIWEC]\] `)
	rePopARTOld     = regexp.MustCompile(`^\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3})\] \[([^\]]+)\] \[[a-z]+\] `)
	rePopTorchPrefx = regexp.MustCompile(`^\[(\d{2}:\d{2}:\d{2}\.\d{3})\] \[(poptorch[:a-z]*)\] \[[a-z]+\] `)
)

// header is what a record's prefix says about it.
type header struct {
	producer  string
	stamp     string
	t         time.Time
	dateKnown bool
}

func (s *Scanner) parseSegment(seg []byte, lineNo int) {
	if bytes.IndexByte(seg, 0x1b) >= 0 {
		seg = reANSI.ReplaceAll(seg, nil)
	}
	if bytes.Contains(seg, []byte("]<std")) {
		seg = reMPI.ReplaceAll(seg, nil)
	}
	if !utf8.Valid(seg) {
		if !s.utf8Warned {
			s.utf8Warned = true
			s.warn(lineNo, "invalid UTF-8: bad bytes replaced")
		}
		seg = bytes.ToValidUTF8(seg, []byte("\uFFFD"))
	}
	prev := 0
	for _, loc := range rePrefixStart.FindAllIndex(seg, -1) {
		if loc[0] > prev {
			s.parseRecord(seg[prev:loc[0]], lineNo)
		}
		prev = loc[0]
	}
	s.parseRecord(seg[prev:], lineNo)
}

func (s *Scanner) parseRecord(rec []byte, lineNo int) {
	rec = bytes.TrimLeft(rec, " \t")
	if len(rec) == 0 {
		return
	}
	h, msg := parsePrefix(rec)
	msg = bytes.TrimSpace(msg)
	if len(msg) == 0 {
		return
	}
	s.classify(string(msg), h, lineNo)
}

func parsePrefix(rec []byte) (header, []byte) {
	var h header
	switch c := rec[0]; {
	case c >= '0' && c <= '9':
		if m := reTFPrefix.FindSubmatch(rec); m != nil {
			h.stamp = string(m[1])
			h.t, h.dateKnown = parseTime("2006-01-02 15:04:05.000000", h.stamp, true)
			h.producer = producerFromSource(string(m[2]), "tf")
			return h, rec[len(m[0]):]
		}
		if m := reGCNewPrefix.FindSubmatch(rec); m != nil {
			h.stamp = string(m[1]) + "Z"
			h.t, h.dateKnown = parseTime("2006-01-02T15:04:05.000000", string(m[1]), true)
			h.producer = producerFromComponent(string(m[2]))
			return h, rec[len(m[0]):]
		}
		if m := reGCOldPrefix.FindSubmatch(rec); m != nil {
			h.stamp = string(m[1])
			h.t, h.dateKnown = parseTime("15:04:05.000", h.stamp, false)
			h.producer = producerFromComponent(string(m[2]))
			return h, rec[len(m[0]):]
		}
	case c == 'I' || c == 'W' || c == 'E' || c == 'F':
		if m := reAbslPrefix.FindSubmatch(rec); m != nil {
			h.stamp = string(m[1]) + string(m[2]) + " " + string(m[3])
			h.t, h.dateKnown = parseAbslTime(string(m[1]), string(m[2]), string(m[3]))
			h.producer = producerFromSource(string(m[4]), "xla")
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
			h.producer = "poptorch"
			return h, rec[len(m[0]):]
		}
	}
	return h, rec
}

func parseTime(layout, v string, withDate bool) (time.Time, bool) {
	t, err := time.Parse(layout, v)
	if err != nil {
		return time.Time{}, false
	}
	return t, withDate
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

func producerFromSource(path, def string) string {
	switch {
	case strings.Contains(path, "plugin/poplar"):
		return "tf-ipu"
	case strings.HasPrefix(path, "tensorflow/"):
		return "tf"
	case strings.Contains(path, "xla/"):
		return "xla"
	}
	return def
}

func producerFromComponent(c string) string {
	switch {
	case strings.HasPrefix(c, "PO"):
		if c == "POPRUN" {
			return "poprun"
		}
		return "poplar"
	case strings.HasPrefix(c, "PL"):
		return "poplibs"
	case strings.HasPrefix(c, "popart"):
		return "popart"
	case strings.HasPrefix(c, "poptorch"):
		return "poptorch"
	}
	return c
}
