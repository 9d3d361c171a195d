package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recomp/recomp/internal/textutil"
)

// What a log, a dump or a file name says reaches people and CI runners through every format.
// None of it may act on its reader: move a terminal's cursor or colour it, start a GitHub
// workflow command, become a link, an image, a mention or markup in a pull-request comment, or
// break an XML document. Each format shows such text with its own escapes (this file), and
// every format but github passes through a lineGuard, which makes sure no line is a runner's
// command whatever a renderer wrote. JSON keeps the exact text (encoding/json escapes it).

// visible shows the characters of untrusted text that would act instead of showing
// (textutil.Visible).
func visible(s string) string { return textutil.Visible(s) }

func isBidiControl(r rune) bool { return textutil.IsBidiControl(r) }

// A lineGuard makes sure that no line an output writes is a command to GitHub's runner, which
// reads every line of a step's output: a line whose first non-blank characters are "::" is a
// workflow command (::stop-commands::, ::add-mask::, ::error::), and a line holding "##["
// anywhere is one in the older syntax. recomp's own lines are neither in any format but
// github, so such a line can only come from a log, a dump or a file name; the guard writes
// its ':' or '[' with the format's own escape, which reads the same to the format's reader.
// Lines end at '\n' and '\r', as they do for the runner; Close writes the last one.
//
// In JSON the guard also writes DEL, the C1 control characters and the bidirectional
// controls as \u escapes (encoding/json escapes only C0): the document decodes to the exact
// text, and none of it acts on a terminal it is printed on.
type lineGuard struct {
	w      io.Writer
	colon  string // ':' at the start of a line
	square string // '[' after "##"
	json   bool
	line   []byte
	err    error
}

// guardEscapes are the escapes of ':' and '[' in each format guarded.
var guardEscapes = map[Format][2]string{
	Text:     {`\x3a`, `\x5b`},
	Markdown: {`\:`, `\[`},
	HTML:     {"&#58;", "&#91;"},
	JUnit:    {"&#58;", "&#91;"},
	JSON:     {`\u003a`, `\u005b`}, // only ever inside strings: a JSON line starts with a blank, a quote or a bracket
}

func newLineGuard(w io.Writer, f Format) *lineGuard {
	e := guardEscapes[f]
	return &lineGuard{w: w, colon: e[0], square: e[1], json: f == JSON}
}

func (g *lineGuard) Write(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n := len(p)
	if len(g.line) > 0 { // the line begun by the last write
		i := bytes.IndexAny(p, "\n\r")
		if i < 0 {
			g.line = append(g.line, p...)
			return n, nil
		}
		g.line = append(g.line, p[:i+1]...)
		g.emit(g.line)
		g.line = g.line[:0]
		p = p[i+1:]
	}
	// The lines that need no defusing go out as they are, each run of them in one write; a
	// line that may need it goes through emit. at holds where the next "::", "##[" and (in
	// JSON) byte of 0x7f or above are, from off on (len(p): none; -1: not looked for yet).
	at := [3]int{-1, -1, -1}
	for off := 0; off < len(p) && g.err == nil; {
		bad := len(p)
		for k := range at {
			if at[k] < off {
				at[k] = len(p)
				if j := g.defusable(k, p[off:]); j >= 0 {
					at[k] = off + j
				}
			}
			bad = min(bad, at[k])
		}
		if k := bytes.LastIndexAny(p[off:bad], "\n\r"); k >= 0 {
			_, g.err = g.w.Write(p[off : off+k+1])
			off += k + 1
			continue
		}
		i := bytes.IndexAny(p[off:], "\n\r")
		if i < 0 {
			g.line = append(g.line, p[off:]...)
			break
		}
		g.emit(p[off : off+i+1])
		off += i + 1
	}
	if g.err != nil {
		return 0, g.err
	}
	return n, nil
}

// defusable is where in p the first of what emit may rewrite is, of kind k: 0 a "::" (a
// workflow command starts with one), 1 a "##[", 2 in JSON a byte jsonControls may write as an
// escape (0x7f or above); -1 where there is none.
func (g *lineGuard) defusable(k int, p []byte) int {
	switch k {
	case 0:
		return bytes.Index(p, []byte("::"))
	case 1:
		return bytes.Index(p, []byte("##["))
	}
	if g.json {
		for i, c := range p {
			if c >= 0x7f {
				return i
			}
		}
	}
	return -1
}

// Close writes what is left of the last line.
func (g *lineGuard) Close() error {
	if len(g.line) > 0 && g.err == nil {
		g.emit(g.line)
		g.line = nil
	}
	return g.err
}

// emit writes one line, defused.
func (g *lineGuard) emit(line []byte) {
	if g.json {
		line = jsonControls(line)
	}
	start := commandStart(line)
	bad := start >= 0
	if !bad && !bytes.Contains(line, []byte("##[")) {
		_, g.err = g.w.Write(line)
		return
	}
	out := make([]byte, 0, len(line)+8)
	if bad {
		out = append(append(out, line[:start]...), g.colon...)
		line = line[start+1:]
	}
	for {
		i := bytes.Index(line, []byte("##["))
		if i < 0 {
			break
		}
		out = append(append(out, line[:i+2]...), g.square...)
		line = line[i+3:]
	}
	_, g.err = g.w.Write(append(out, line...))
}

// jsonControls writes DEL, C1 and bidirectional controls of a JSON line as \u escapes.
func jsonControls(line []byte) []byte {
	i := 0
	for i < len(line) {
		if line[i] == 0x7f || line[i] >= 0x80 {
			r, n := utf8.DecodeRune(line[i:])
			if r == 0x7f || r >= 0x80 && r <= 0x9f || isBidiControl(r) {
				break
			}
			i += n
			continue
		}
		i++
	}
	if i == len(line) {
		return line
	}
	out := append(make([]byte, 0, len(line)+16), line[:i]...)
	for i < len(line) {
		r, n := utf8.DecodeRune(line[i:])
		if r == 0x7f || r >= 0x80 && r <= 0x9f || isBidiControl(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, line[i:i+n]...)
		}
		i += n
	}
	return out
}

// commandStart is the offset of the "::" that a runner would read as the start of a workflow
// command in line (-1 when there is none): the runner trims white space first, and the guard
// also steps over the colour sequences of recomp's text format.
func commandStart(line []byte) int {
	i := 0
	for i < len(line) {
		if line[i] == 0x1b && i+1 < len(line) && line[i+1] == '[' {
			j := i + 2
			for j < len(line) && (line[j] >= '0' && line[j] <= '9' || line[j] == ';') {
				j++
			}
			if j < len(line) {
				i = j + 1
				continue
			}
			return -1
		}
		r, n := utf8.DecodeRune(line[i:])
		if !unicode.IsSpace(r) && r != 0xfeff && !(r >= 0x200b && r <= 0x200d) && r != 0x2060 && r != 0x180e {
			break
		}
		i += n
	}
	if bytes.HasPrefix(line[i:], []byte("::")) {
		return i
	}
	return -1
}

// Markdown. Text from a log or a dump goes into Markdown either as code (names, paths,
// hashes, evidence: mdCode), which Markdown and GitHub show as it is — no link, image,
// mention or markup is made inside a code span — or as prose (messages, reasons, advice:
// mdText), where what would become markup is escaped.

// mdCode is s as an inline code span, delimited by more backticks than s holds in a row. In a
// table cell (cell), '|' is escaped as GitHub's tables require even inside code.
func mdCode(s string, cell bool) string {
	s = visible(s)
	if cell {
		s = strings.ReplaceAll(s, "|", `\|`)
	}
	run, longest := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 || strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") && strings.Trim(s, " ") != "" {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// mdText is s as Markdown prose. Markup is escaped: HTML ('<', '>', '&'), links and images
// (a ']' that would close a link text before '(', '[' or ':'; no format writes one of them
// right after prose), table cells ('|'), code spans
// (a backtick becomes a quote), backslashes; mentions (@name), issue references (#12) and
// bare web addresses get a zero-width space after '@', '#' or ':', so GitHub links and notifies
// no one; control characters are shown with visible.
func mdText(s string) string {
	s = visible(s)
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		next := byte(0)
		if i+1 < len(s) {
			next = s[i+1]
		}
		switch {
		case c == '\\':
			b.WriteString(`\\`)
		case c == '<':
			b.WriteString("&lt;")
		case c == '>':
			b.WriteString("&gt;")
		case c == '&':
			b.WriteString("&amp;")
		case c == '|':
			b.WriteString(`\|`)
		case c == '`':
			b.WriteByte('\'')
		case c == ']' && (next == '(' || next == '[' || next == ':'):
			b.WriteString(`\]`)
		case c == '@' && isWordByte(next), c == '#' && next >= '0' && next <= '9':
			b.WriteByte(c)
			b.WriteString("&#8203;")
		case c == ':' && strings.HasPrefix(s[i+1:], "//"):
			b.WriteString(":&#8203;")
		case (c == 'w' || c == 'W') && len(s) >= i+4 && strings.EqualFold(s[i:i+4], "www.") && (i == 0 || !isWordByte(s[i-1])):
			b.WriteString(s[i : i+3])
			b.WriteString("&#8203;")
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
}

// GitHub workflow commands: data and properties escaped as the runner unescapes them (%, \r,
// \n; and ':' and ',' in properties), other control characters shown with visible.
var (
	ghMessage  = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	ghProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

func ghData(s string) string { return ghMessage.Replace(textutil.EscapeControls(s, true)) }
func ghProp(s string) string { return ghProperty.Replace(textutil.EscapeControls(s, true)) }
