package report

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/internal/textutil"
	"github.com/recomp/recomp/ledger"
)

// dur prints a duration the same way in every format.
func dur(d time.Duration) string { return ledger.FormatDuration(d) }

// seconds is a duration in the float seconds of JSON, rounded to milliseconds.
func seconds(d time.Duration) float64 { return float64(d.Milliseconds()) / 1000 }

var shorten = textutil.Shorten

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func joinOr(xs []string, def string) string {
	if len(xs) == 0 {
		return def
	}
	return strings.Join(xs, ", ")
}

// table writes aligned columns; the first row is the header.
type table struct {
	rows  [][]string
	right []bool // right-align column i
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(w io.Writer, indent string) {
	if len(t.rows) == 0 {
		return
	}
	widths := make([]int, len(t.rows[0]))
	for _, r := range t.rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range t.rows {
		var b strings.Builder
		b.WriteString(indent)
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			switch {
			case i < len(t.right) && t.right[i]:
				b.WriteString(pad + c)
			case i == len(r)-1:
				b.WriteString(c)
			default:
				b.WriteString(c + pad)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// mdEscape makes text safe inside a Markdown table cell or list item.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "`", "'", "<", "&lt;", ">", "&gt;").Replace(s)
}

// painter colours text on a terminal. It writes private-use characters that controlSafe turns
// into escape sequences: an escape byte that comes from a log never reaches the terminal.
type painter struct{ on bool }

const (
	paintRed    = "\ue001"
	paintYellow = "\ue002"
	paintBold   = "\ue003"
	paintReset  = "\ue000"
)

// sgr maps the painter's characters to the escape sequences they stand for.
var sgr = strings.NewReplacer(paintRed, "\x1b[31m", paintYellow, "\x1b[33m", paintBold, "\x1b[1m", paintReset, "\x1b[0m")

// controlSafe writes the text format: control characters that come from a log or a file name
// (a carriage return, an escape sequence that moves the cursor or retitles the window, NUL)
// are written as visible escapes such as \x1b; newlines and tabs pass, and the painter's
// characters become its colours.
type controlSafe struct{ w io.Writer }

func (c *controlSafe) Write(p []byte) (int, error) {
	var out []byte
	for i, b := range p {
		if (b < 0x20 && b != '\n' && b != '\t') || b == 0x7f {
			if out == nil {
				out = append(make([]byte, 0, len(p)+16), p[:i]...)
			}
			out = fmt.Appendf(out, "\\x%02x", b)
		} else if out != nil {
			out = append(out, b)
		}
	}
	if out == nil {
		out = p
	}
	if bytes.Contains(out, []byte("\xee\x80")) { // the UTF-8 lead of U+E000..U+E03F
		out = []byte(sgr.Replace(string(out)))
	}
	if _, err := c.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (p painter) sev(s string) string {
	if !p.on {
		return s
	}
	switch s {
	case "error", "FAIL", "ERROR":
		return paintRed + s + paintReset
	case "warning":
		return paintYellow + s + paintReset
	}
	return s
}

func (p painter) bold(s string) string {
	if !p.on {
		return s
	}
	return paintBold + s + paintReset
}

// ShellQuote quotes a file name for a POSIX shell: bare when it is made of safe characters,
// in single quotes otherwise, and as $'…' with escapes when it holds control characters (a
// newline or a tab must not break the command line it is printed in).
func ShellQuote(s string) string {
	safe := s != ""
	ctrl := false
	for _, r := range s {
		switch {
		case r < 0x20 || r == 0x7f:
			ctrl, safe = true, false
		case !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./:=@%+,-", r)):
			safe = false
		}
	}
	switch {
	case safe:
		return s
	case !ctrl:
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\\' || c == '\'':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteString("'")
	return b.String()
}

func sortedKinds(m map[diff.ChangeKind]int) []diff.ChangeKind {
	keys := make([]diff.ChangeKind, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func sortStrings(xs []string) { slices.Sort(xs) }
