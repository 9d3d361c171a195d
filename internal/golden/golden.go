// Package golden owns the -update flag of every golden-file test in the module and the
// compare-or-rewrite of one golden file, so that `go test ./... -update` rewrites them all:
// report/testdata/golden, hlo/testdata/grammar, the want sections of diff/testdata/dumps and
// the scripts of cmd/recomp/testdata/script. Only tests import it, and every package's tests
// do (those without golden files blank, from update_test.go: internal/shape checks it), since
// a test binary that does not define -update rejects it.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files (report, hlo, diff, cmd/recomp) instead of comparing with them")

// Update says whether the test run was asked to rewrite the golden files (-update).
func Update() bool { return *update }

// Check compares got with the golden file path, failing t with the first line that differs
// and all of got; with -update it writes got to path instead.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it)%s\nall of it:\n%s", path, FirstDifference(string(got), string(want)), got)
	}
}

// FirstDifference names the first line where got and want differ ("" when they do not).
func FirstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("\nline %d:\n   got: %s\n  want: %s", i+1, gl, wl)
		}
	}
	return ""
}
