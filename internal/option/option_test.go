package option

import (
	"errors"
	"fmt"
	"testing"
)

// Error names the options by their names, Named as the caller names them; a value with a verb
// in it stays a value.
func TestNamed(t *testing.T) {
	e := New([]string{"step"}, "%[1]s %[2]q: want a group", "%[1]s")
	if got := e.Error(); got != `step "%[1]s": want a group` {
		t.Errorf("Error: %s", got)
	}
	flag := func(o string) string { return "--" + o }
	if got := e.Named(flag); got != `--step "%[1]s": want a group` {
		t.Errorf("Named: %s", got)
	}
	two := New([]string{"warmup", "after"}, "%[1]s and %[2]s are exclusive")
	if got := two.Named(flag); got != "--warmup and --after are exclusive" {
		t.Errorf("Named: %s", got)
	}
	var oe *Error
	if !errors.As(fmt.Errorf("wrapped: %w", two), &oe) || oe != two {
		t.Error("errors.As does not find the Error")
	}
	cause := errors.New("it would overwrite an input")
	if w := New([]string{"write-baseline"}, "%[1]s %[2]v", cause); !errors.Is(w, cause) || w.Error() != "write-baseline it would overwrite an input" {
		t.Errorf("an error among the values: %v, errors.Is %v", w, errors.Is(w, cause))
	}
}
