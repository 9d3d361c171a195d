package main

import (
	"os"

	"github.com/recomp/recomp/cache"
	"github.com/recomp/recomp/report"
)

type cacheCmd struct {
	outputFlag
	Log  []string `sep:"none" help:"Logs of runs that used the cache: say which entries they hit, wrote or missed (repeat for several)." placeholder:"LOG"`
	Dirs []string `arg:"" name:"CACHE_DIR" help:"Executable-cache folders (TF-IPU executable_cache_path, PopART/PopTorch cachePath, JAX jax_compilation_cache_dir)."`
}

func (c *cacheCmd) Run(e *env) error {
	if err := c.check("cache"); err != nil {
		return err
	}
	use, err := cache.ReadLogUse(c.Log, e.stdin)
	if err != nil {
		return usageErr("%v", err)
	}
	var folders []cache.Folder
	for _, d := range c.Dirs {
		folders = append(folders, cache.Folder{Name: d, FS: os.DirFS(d)})
	}
	inv, err := cache.Take(folders, use)
	if err != nil {
		return usageErr("%v", err)
	}
	e.log.Debug("inventory", "entries", inv.Count, "bytes", inv.Bytes, "unused", inv.Unused)
	return c.render(e, &report.Cache{Dirs: c.Dirs, Inventory: inv, LogsGiven: len(c.Log) > 0})
}
