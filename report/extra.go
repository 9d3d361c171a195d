package report

import (
	"io"
)

// selfRendered is a report model whose renderers sit beside it rather than in the renderer of
// each format: RunsDiff (runs.go), Ranks (ranks.go).
type selfRendered interface {
	Report
	render(w io.Writer, f Format, st Style) error
}

func (*RunsDiff) command() string { return "diff" }
func (*Ranks) command() string    { return "ranks" }

var (
	_ selfRendered = (*RunsDiff)(nil)
	_ selfRendered = (*Ranks)(nil)
)
