package live

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/recomp/recomp/internal/option"
)

// Watch and Run refuse what they cannot do before they follow or start anything: the errors
// name the options, which the command line names as its flags.
func TestRefusals(t *testing.T) {
	flag := func(o string) string { return "--" + o }
	opt := WatchOptions{Out: io.Discard, Warn: io.Discard}
	var oe *option.Error
	if _, err := Watch(context.Background(), []string{"train.log"}, 0, opt); !errors.As(err, &oe) ||
		oe.Named(flag) != "--interval wants a duration > 0, --compile-budget one >= 0" {
		t.Errorf("interval 0: %v", err)
	}
	if _, err := Watch(context.Background(), []string{"-"}, time.Second, opt); err == nil {
		t.Error("standard input followed")
	}
	_, err := Run(RunOptions{StopGrace: -time.Second})
	if !errors.As(err, &oe) || oe.Named(flag) != "--compile-budget and --stop-grace want a duration >= 0" {
		t.Errorf("a negative stop grace: %v", err)
	}
}
