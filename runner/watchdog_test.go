package runner

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	if IsWatchdog() { // a Run in this test binary started it as its watchdog
		os.Exit(Watchdog(os.Stdin))
	}
	os.Exit(m.Run())
}

// The fixed cost the watchdog adds to a run: a command that does nothing, with and without one.
func BenchmarkRunWatchdog(b *testing.B) {
	for _, c := range []struct {
		name string
		argv []string
	}{{"none", nil}, {"watchdog", []string{os.Args[0]}}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				res, err := Run(Options{Command: []string{"true"}, Stdout: discard{}, Stderr: discard{}, Watchdog: c.argv})
				if err != nil || res.ExitCode != 0 {
					b.Fatal(err, res)
				}
			}
		})
	}
}
