package report

import (
	"github.com/recomp/recomp/cache"
)

// Cache is the report of recomp cache.
type Cache struct {
	Dirs      []string
	Inventory *cache.Inventory
	LogsGiven bool
	// Against is the cache held against this one (--against): why this cache's entries are
	// not its; nil when none was given.
	Against     *cache.Comparison
	AgainstDirs []string
}
