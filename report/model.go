// Package report lays out recomp's results in every output format from one place: text for
// people, Markdown for CI comments, JSON for scripts (a versioned contract), GitHub workflow
// annotations and JUnit XML for CI gates, and a self-contained HTML page. The results are
// computed and defined below it (explain's Scan, Guard, Diff, Run, RunsDiff, Ranks; cache's
// Inventory, wrapped in Cache here); Render picks the layout of the format. Only the commands
// import report. The package prints nothing on its own and reads no files.
package report

import (
	"github.com/recomp/recomp/cache"
)

// Cache is the report of recomp cache.
type Cache struct {
	Dirs      []string
	Inventory *cache.Inventory
	LogsGiven bool
}
