// Package corpus finds the real third-party corpus that lives beside the project, in
// ../shared (never copied into it), for the tests that read it. Without it such a test skips
// and says so loudly (and at the end of go test: package skipped); under CI (RECOMP_REQUIRE_SHARED=1, set by .ci/run) it fails instead, so a
// missing corpus can never pass as a green run.
package corpus

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/recomp/recomp/internal/skipped"
)

// Dir returns the path of ../shared/<rel> beside the module root, or skips (fails under CI)
// when it is not there.
func Dir(tb testing.TB, rel string) string {
	tb.Helper()
	root, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			tb.Fatal("no go.mod above the test's folder")
		}
		root = parent
	}
	dir := filepath.Join(root, "..", "shared", rel)
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("RECOMP_REQUIRE_SHARED") != "" {
			tb.Fatalf("%s is missing and RECOMP_REQUIRE_SHARED is set: the real corpus must be beside the project", dir)
		}
		skipped.Skip(tb, skipped.Corpus, "", dir+" is not beside the project: this test of the real corpus did not run")
	}
	return dir
}
