package hlo

import (
	"math"
	"strconv"
	"strings"
)

// CanonicalLiteral returns a constant's literal with white space and comments removed and
// every number printed in one way, so that literals printed by different XLA versions compare equal when
// their values are equal (1 and 1.0, 7.4505806e-09 and 7.4505806e-9).
func CanonicalLiteral(lit string) string {
	var b strings.Builder
	b.Grow(len(lit))
	tok := func(t string) {
		if t == "" {
			return
		}
		b.WriteString(canonicalNumber(t))
	}
	start := -1
	for i := 0; i < len(lit); i++ {
		c := lit[i]
		switch c {
		case '/':
			// A comment: /*i0=0*/ before the rows of a literal, or one written by hand.
			if start >= 0 {
				tok(lit[start:i])
				start = -1
			}
			if i+1 < len(lit) && lit[i+1] == '*' {
				end := strings.Index(lit[i+2:], "*/")
				if end < 0 {
					return b.String()
				}
				i += end + 3
			} else {
				for i+1 < len(lit) && lit[i+1] != '\n' && lit[i+1] != '\r' {
					i++
				}
			}
		case '{', '}', '(', ')', ',', ' ', '\t', '\n', '\r':
			if start >= 0 {
				tok(lit[start:i])
				start = -1
			}
			if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				b.WriteByte(c)
			}
		default:
			if start < 0 {
				start = i
			}
		}
	}
	if start >= 0 {
		tok(lit[start:])
	}
	return b.String()
}

func canonicalNumber(t string) string {
	switch t {
	case "true", "false", "...", "inf", "-inf", "nan", "-nan":
		return t
	}
	if strings.HasPrefix(t, "nan(") || strings.HasPrefix(t, "-nan(") {
		return t
	}
	if v, err := strconv.ParseInt(t, 10, 64); err == nil {
		return strconv.FormatInt(v, 10)
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return t
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return t
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
