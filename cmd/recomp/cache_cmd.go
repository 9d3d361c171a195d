package main

import (
	"os"

	"github.com/recomp/recomp/cache"
	"github.com/recomp/recomp/logscan"
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
	use := cache.NewLogUse()
	if len(c.Log) > 0 {
		if err := checkInputs(c.Log); err != nil {
			return err
		}
		for _, p := range c.Log {
			if err := logUse(e, p, use); err != nil {
				return err
			}
		}
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

// logUse reads the cache events of one log.
func logUse(e *env, path string, use cache.LogUse) error {
	rc, err := openLog(path, e.stdin)
	if err != nil {
		return usageErr("%v", err)
	}
	defer rc.Close()
	s := logscan.NewScanner(rc, path, logscan.Options{})
	for s.Scan() {
		ev := s.Event()
		use.Add(ev.Kind, ev.Path)
	}
	return nil
}
