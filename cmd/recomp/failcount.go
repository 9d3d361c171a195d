package main

import (
	"fmt"
	"strconv"

	"github.com/alecthomas/kong"
)

// exitStopped is recomp run's exit code when it stopped the command at a compilation after
// warm-up (--fail-on-recompile, --compile-budget). recomp watch, which stops nothing, exits 1
// (exitFound) then.
const exitStopped = 4

// failCount is --fail-on-recompile: given alone it stops at the first compilation after
// warm-up, given =N at the Nth.
type failCount int

func (f *failCount) Decode(ctx *kong.DecodeContext) error {
	if ctx.Scan.Peek().Type != kong.FlagValueToken {
		*f = 1
		return nil
	}
	t, err := ctx.Scan.PopValue("count")
	if err != nil {
		return err
	}
	s := fmt.Sprint(t.Value)
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return fmt.Errorf("--fail-on-recompile=%s: want a count >= 1", s)
	}
	*f = failCount(n)
	return nil
}

// IsBool lets the flag be given without a value.
func (f *failCount) IsBool() bool { return true }
