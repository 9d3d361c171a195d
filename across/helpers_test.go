package across

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/recomp/recomp/explain"
)

// pairs says what an explanation compared: "label: A -> B: first cause".
func pairs(d *explain.Diff) string {
	var out []string
	for _, p := range d.Pairs {
		cause := ""
		if len(p.Result.Causes) > 0 {
			cause = string(p.Result.Causes[0].Kind)
		}
		out = append(out, fmt.Sprintf("%s: %s -> %s: %s", p.Label(), filepath.Base(p.A.Path)[:11], filepath.Base(p.B.Path)[:11], cause))
	}
	return strings.Join(out, "; ")
}
