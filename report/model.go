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
