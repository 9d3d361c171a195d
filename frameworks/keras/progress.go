package keras

import (
	"strconv"
	"strings"

	"github.com/recomp/recomp/logscan"
)

// Log is how logscan reads Keras's own progress output (Keras 3's ProgbarLogger and Progbar:
// keras/src/callbacks/progbar_logger.py, keras/src/utils/progbar.py), as logscan.Progress events.
// It says in which of Keras's loops the compilations around it ran:
//
//   - "Epoch 2/5" starts an epoch of fit (printed only when fit runs more than one epoch, and
//     verbose is not 0);
//   - a bar counts the steps of an epoch, an evaluate or a predict: with verbose=1 (the default)
//     "4/4 ━━━━━━━━━━━━━━━━━━━━ 0s 12ms/step - loss: 0.6931 - val_loss: 0.7012", redrawn in place
//     with "\b" and "\r" (on Linux even into a pipe or a file), in ANSI colours, with "=" for "━"
//     where the terminal cannot encode it, "7/Unknown" while the steps are not known yet; with
//     verbose=2 one line at the end, "4/4 - 0s - 12ms/step - loss: 0.6931";
//   - fit's validation prints no bar of its own: its metrics end the epoch's last bar ("val_");
//     predict's bar has no metrics.
//
// Keras 2's bars ("4/4 [==============================] - 0s 12ms/step - loss: 0.69") read the
// same. A program's own lines that merely hold "Epoch " or "/step" are not read.
var Log = &logscan.Framework{
	Name:    Name,
	Anchors: []string{"Epoch ", "s/step"},
	Rules: []logscan.Rule{
		{Prefix: "Epoch ", Handle: epochLine},
		{Contains: "s/step", Handle: barLine},
	},
}

// maxMetrics bounds the metric names a bar event keeps.
const maxMetrics = 32

// trimBar removes what Keras writes around a bar's text: the spaces that pad it to the width of
// the one before, the backspaces of the next redraw, a line's leading spaces.
func trimBar(msg string) string {
	return strings.Trim(msg, " \t\b")
}

func epochLine(c *logscan.Context, msg string) bool {
	i, n, rest, ok := count(trimBar(msg)[len("Epoch "):])
	if !ok || rest != "" || n == "Unknown" {
		return false
	}
	if total, err := strconv.Atoi(n); err != nil || i < 1 || i > total {
		return false
	}
	step := strconv.Itoa(i) + "/" + n
	c.Emit(logscan.Event{Kind: logscan.Progress, Producer: logscan.ProducerKeras, Signal: "keras:epoch", Phase: "epoch",
		Count: i, Step: step, Detail: "Epoch " + step})
	return true
}

// count reads "I/N" at the start of s (N a number or "Unknown"), and returns the rest.
func count(s string) (i int, n, rest string, ok bool) {
	a := digits(s)
	if a == 0 || a > 12 || a >= len(s) || s[a] != '/' {
		return 0, "", "", false
	}
	i, _ = strconv.Atoi(s[:a])
	s = s[a+1:]
	if b := digits(s); b > 0 && b <= 12 {
		return i, s[:b], s[b:], true
	}
	if strings.HasPrefix(s, "Unknown") {
		return i, "Unknown", s[len("Unknown"):], true
	}
	return 0, "", "", false
}

func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// barLine reads a bar's state. A record glued after it (a terminal's bar has no newline until
// its last state: "… loss: 0.7597Finished XLA compilation of jit(f) in 0.28 sec") is left to the
// scanner, which then looks for a message head in the rest.
func barLine(c *logscan.Context, msg string) bool {
	cur, target, metrics, glued, ok := parseBar(msg)
	if !ok {
		return false
	}
	c.Emit(logscan.Event{Kind: logscan.Progress, Producer: logscan.ProducerKeras, Signal: "keras:bar", Phase: "bar",
		Count: cur, Step: strconv.Itoa(cur) + "/" + target, Detail: strings.Join(metrics, " ")})
	return !glued
}

// ParseBar reads one state of a Keras progress bar (see Log): the steps done, the steps in all
// as printed (a number, or "Unknown"), and the names of the metrics it shows, in order. ok is
// false for any other text (a bar with another record glued after it included).
func ParseBar(msg string) (cur int, target string, metrics []string, ok bool) {
	cur, target, metrics, glued, ok := parseBar(msg)
	if glued {
		return 0, "", nil, false
	}
	return cur, target, metrics, ok
}

// parseBar is ParseBar, and says whether text follows the last metric's value (glued: a record
// printed after a state that did not end its line).
func parseBar(msg string) (cur int, target string, metrics []string, glued, ok bool) {
	cur, target, rest, ok := count(trimBar(msg))
	if !ok || rest != "" && rest[0] != ' ' {
		return 0, "", nil, false, false
	}
	rate := false
	parts := strings.Split(rest, " - ")
	for i, part := range parts {
		if name, value, isMetric := strings.Cut(part, ": "); isMetric && metricName(name) {
			n := number(value)
			if n == 0 || n < len(value) && i < len(parts)-1 {
				return 0, "", nil, false, false
			}
			glued = n < len(value)
			if len(metrics) < maxMetrics {
				metrics = append(metrics, name)
			}
			continue
		}
		for _, f := range strings.Fields(part) {
			switch {
			case perUnit(f):
				rate = rate || strings.HasSuffix(f, "/step")
			case barRun(f), duration(f):
			default:
				return 0, "", nil, false, false
			}
		}
	}
	if !rate {
		return 0, "", nil, false, false
	}
	return cur, target, metrics, glued, true
}

// number is the length of the number s starts with, as Keras prints a metric ("0.6931",
// "1.2000e-04", "-3.5", "nan", "inf"); 0 when none.
func number(s string) int {
	for _, w := range []string{"nan", "inf", "-inf"} {
		if strings.HasPrefix(s, w) {
			return len(w)
		}
	}
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	d := digits(s[i:])
	i += d
	if i < len(s) && s[i] == '.' {
		f := digits(s[i+1:])
		d += f
		i += 1 + f
	}
	if d == 0 {
		return 0
	}
	if i+1 < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if s[j] == '-' || s[j] == '+' {
			j++
		}
		if e := digits(s[j:]); e > 0 {
			i = j + e
		}
	}
	return i
}

// metricName says whether s can be the name of a metric Keras shows ("loss", "val_accuracy",
// "output_1_mean_absolute_error").
func metricName(s string) bool {
	if s == "" || len(s) > 128 || !isLetter(s[0]) && s[0] != '_' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if b := s[i]; !isLetter(b) && (b < '0' || b > '9') && !strings.ContainsRune("_./-", rune(b)) {
			return false
		}
	}
	return true
}

func isLetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }

// perUnit says whether f is a time per step, epoch or sample ("12ms/step", "1s/epoch", "80us/step").
func perUnit(f string) bool {
	t, unit, ok := strings.Cut(f, "/")
	if !ok || unit != "step" && unit != "epoch" && unit != "sample" {
		return false
	}
	n := digits(t)
	if n == 0 {
		return false
	}
	switch t[n:] {
	case "s", "ms", "us":
		return true
	}
	return false
}

// barRun says whether f is drawn bar: Keras 3's "━" (or "=" where the terminal cannot encode
// it), Keras 2's "[=====>....]".
func barRun(f string) bool {
	for _, r := range f {
		if !strings.ContainsRune("━=>.[]", r) {
			return false
		}
	}
	return true
}

// duration says whether f is an elapsed time or an ETA as Keras prints them: "3s", "1:05",
// "1:02:09".
func duration(f string) bool {
	if n := digits(f); n > 0 && f[n:] == "s" {
		return true
	}
	parts := strings.Split(f, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return false
	}
	for _, p := range parts {
		if n := digits(p); n == 0 || n != len(p) {
			return false
		}
	}
	return true
}
