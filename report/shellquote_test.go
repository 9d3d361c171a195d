package report

import (
	"os/exec"
	"strings"
	"testing"
)

// ShellQuote's word reads back as the exact bytes in bash, and is text that no format rewrites
// (visible leaves it, the line guard finds no "##[", no line break): what the text, Markdown and
// JSON layouts show is what the shell runs.
func FuzzShellQuote(f *testing.F) {
	for _, s := range []string{"plain", "it's", "c`ache``x", "a##[b", "##[##[", "new\nline", "latin\xe9", "bad\xff\xfe",
		"bidi\u202eevil", "c1\u0085x", "esc\x1b[31m", `back\slash`, "$(rm -rf ~)", "\xe9a", "é 日本", "-rf", " "} {
		f.Add(s)
	}
	bash, _ := exec.LookPath("bash")
	f.Fuzz(func(t *testing.T, s string) {
		if s == "" || strings.IndexByte(s, 0) >= 0 {
			t.Skip("no file name is empty or holds a NUL")
		}
		q := ShellQuote(s)
		if visible(q) != q || strings.Contains(q, "##[") || strings.ContainsAny(q, "\n\r") {
			t.Fatalf("%q quoted as %q: a layout would rewrite it", s, q)
		}
		if bash == "" {
			return
		}
		out, err := exec.Command(bash, "-c", "printf %s "+q).Output()
		if err != nil || string(out) != s {
			t.Fatalf("%q quoted as %q: bash reads %q (%v)", s, q, out, err)
		}
	})
}
