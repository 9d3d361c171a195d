package shape

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHackingNamesEveryPackage fails when a package of `go list ./...` is not named in the
// Layout section of docs/hacking.md (as `path`, relative to the module), or when the section
// names a package that is not there: the contributor's map of the tree stays the tree.
func TestHackingNamesEveryPackage(t *testing.T) {
	root, _ := filepath.Abs("../..")
	b, err := os.ReadFile(filepath.Join(root, "docs", "hacking.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, layout, ok := strings.Cut(string(b), "\n## Layout\n")
	if !ok {
		t.Fatal("docs/hacking.md has no Layout section")
	}
	layout, _, _ = strings.Cut(layout, "\n## ")
	cmd := exec.Command("go", "list", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	pkgs := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p, strings.TrimSuffix(module, "/")), "/")
		pkgs[rel] = true
		if !strings.Contains(layout, "`"+rel+"`") {
			t.Errorf("docs/hacking.md's Layout does not name the package %s: give it a line", rel)
		}
	}
	if len(pkgs) < 30 {
		t.Fatalf("go list ./... named %d packages", len(pkgs))
	}
	// a name like a package's that no package has: a package moved or removed
	for _, f := range strings.Split(layout, "`")[1:] {
		if strings.HasPrefix(f, "internal/") || strings.HasPrefix(f, "frameworks/") || strings.HasPrefix(f, "cmd/") {
			if !pkgs[f] && !strings.ContainsAny(f, " .") {
				if _, err := os.Stat(filepath.Join(root, f)); err != nil {
					t.Errorf("docs/hacking.md's Layout names %s, which is not in the tree", f)
				}
			}
		}
	}
}
