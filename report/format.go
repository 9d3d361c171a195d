package report

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recomp/recomp/internal/textutil"
	"github.com/recomp/recomp/ledger"
)

// dur prints a duration the same way in every format.
func dur(d time.Duration) string { return ledger.FormatDuration(d) }

// durSeconds prints float seconds (a manifest's, the timeline's axis) as dur does.
func durSeconds(s float64) string { return dur(time.Duration(s * float64(time.Second))) }

// seconds is a duration in the float seconds of JSON, rounded to milliseconds.
func seconds(d time.Duration) float64 { return float64(d.Milliseconds()) / 1000 }

var shorten = textutil.Shorten

var plural = textutil.Plural

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

// table writes aligned columns of the text format; the first row is the header. Cells are
// shown with visible: a name from a log cannot break a row.
type table struct {
	rows  [][]string
	right []bool // right-align column i
}

func (t *table) add(cells ...string) {
	for i, c := range cells {
		cells[i] = visible(c)
	}
	t.rows = append(t.rows, cells)
}

func (t *table) write(o *textOut, indent string) {
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
		o.raw(strings.TrimRight(b.String(), " ") + "\n")
	}
}

// ShellQuote quotes a file name for a POSIX shell (bash, zsh, ksh: $'…' is theirs) so that the
// shell reads back its exact bytes from the command in every format recomp prints it in: bare
// when it is made of safe characters, in single quotes otherwise, and as $'…' with escapes when
// it holds what a format would rewrite (visible's characters: control characters, which must not
// break the command line, C1 and bidirectional controls, bytes that are not UTF-8; and GitHub's
// "##[", which the line guard escapes): those are written as \xNN bytes, so that the command
// is plain printable text that every layout shows as it is.
func ShellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./:=@%+,-", r)) {
			safe = false
			break
		}
	}
	switch {
	case safe:
		return s
	case visible(s) == s && !strings.Contains(s, "##["):
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '[' && strings.HasSuffix(s[:i], "##"):
			b.WriteString(`\x5b`)
		case visible(s[i:i+n]) != s[i:i+n]:
			for _, c := range []byte(s[i : i+n]) {
				fmt.Fprintf(&b, `\x%02x`, c)
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	b.WriteString("'")
	return b.String()
}
