package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/recomp/recomp/cache"
)

// jsonVersion is the version of every JSON document recomp writes. Bump it on any change that
// is not an added field.
const jsonVersion = 1

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// seconds turns a duration into the float seconds used in JSON, rounded to milliseconds.
func seconds(d time.Duration) float64 {
	return float64(d.Milliseconds()) / 1000
}

var fmtDur = cache.FormatDuration

// nonNil makes an empty slice encode as [] rather than null.
func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// shorten cuts s to at most n runes, keeping its head and tail.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n || n < 5 {
		return s
	}
	head := (n - 1) * 2 / 3
	tail := n - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
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
			if n := len([]rune(c)); n > widths[i] {
				widths[i] = n
			}
		}
	}
	for _, r := range t.rows {
		var b strings.Builder
		b.WriteString(indent)
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
			if i > 0 {
				b.WriteString("  ")
			}
			if i < len(t.right) && t.right[i] {
				b.WriteString(pad + c)
			} else if i == len(r)-1 {
				b.WriteString(c)
			} else {
				b.WriteString(c + pad)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// mdEscape makes text safe inside a Markdown table cell.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "`", "'").Replace(s)
}

type painter struct{ on bool }

func (p painter) sev(s string) string {
	if !p.on {
		return s
	}
	switch s {
	case "error", "FAIL":
		return "\x1b[31m" + s + "\x1b[0m"
	case "warning":
		return "\x1b[33m" + s + "\x1b[0m"
	}
	return s
}

func (p painter) bold(s string) string {
	if !p.on {
		return s
	}
	return "\x1b[1m" + s + "\x1b[0m"
}

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
