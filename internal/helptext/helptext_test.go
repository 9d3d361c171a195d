package helptext

import (
	"bytes"
	"strings"
	"testing"
)

// help.txt gives every command an example and exit codes, 0 first; Write wraps each meaning
// at 80 columns under its first word.
func TestWrite(t *testing.T) {
	for _, cmd := range []string{"run", "watch", "scan", "diff", "explain", "guard", "ranks", "cache", "hlo check", "hlo fingerprint"} {
		h := Commands[cmd]
		if !strings.HasPrefix(h.Example, "recomp "+cmd) || len(h.Exits) < 2 || !strings.HasPrefix(h.Exits[0], "0 ") {
			t.Errorf("help.txt's %s: %+v", cmd, h)
		}
		var b bytes.Buffer
		Write(&b, cmd)
		for _, line := range strings.Split(b.String(), "\n") {
			if len(line) > 80 && strings.Contains(strings.TrimSpace(line), " ") {
				t.Errorf("%s: a line of %d columns: %q", cmd, len(line), line)
			}
		}
	}
	var b bytes.Buffer
	if Write(&b, "no such command"); b.Len() != 0 {
		t.Errorf("a command help.txt does not name: %q", b.String())
	}
	if got := wrapExit("2  "+strings.Repeat("word ", 20), 40); got != "  2  word word word word word word word\n     word word word word word word word\n     word word word word word word" {
		t.Errorf("wrapExit:\n%s", got)
	}
}

// WithDefault says the default inside the help's last full stop.
func TestWithDefault(t *testing.T) {
	if got := WithDefault("Run it.", "on"); got != "Run it (default: on)." {
		t.Error(got)
	}
	if got := WithDefault("Run it", "3s"); got != "Run it (default: 3s)" {
		t.Error(got)
	}
}
