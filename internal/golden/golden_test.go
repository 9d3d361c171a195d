package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFirstDifference(t *testing.T) {
	if d := FirstDifference("a\nb\nc", "a\nb\nc"); d != "" {
		t.Errorf("equal texts: %q", d)
	}
	if d := FirstDifference("a\nx\nc", "a\nb\nc"); !strings.Contains(d, "line 2:") || !strings.Contains(d, "got: x") || !strings.Contains(d, "want: b") {
		t.Errorf("line 2: %q", d)
	}
	if d := FirstDifference("a\nb", "a\nb\nc"); !strings.Contains(d, "line 3:") {
		t.Errorf("a shorter text: %q", d)
	}
}

// Check passes on an equal file and, with -update, writes the file it compares with.
func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.golden")
	os.WriteFile(path, []byte("same\n"), 0o644)
	Check(t, path, []byte("same\n"))
	*update = true
	defer func() { *update = false }()
	Check(t, path, []byte("new\n"))
	if b, _ := os.ReadFile(path); string(b) != "new\n" {
		t.Errorf("-update wrote %q", b)
	}
}
