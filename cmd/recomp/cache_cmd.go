package main

import (
	"os"

	"github.com/recomp/recomp/cache"
	"github.com/recomp/recomp/report"
)

type cacheCmd struct {
	outputFlag
	Log     []string `sep:"none" help:"Logs of runs that used the cache: say which entries they hit, wrote or missed (repeat for several)." placeholder:"LOG"`
	Against []string `sep:"none" help:"Another cache (another pod's, an earlier run's): say why this cache's entries are not its, by the parts of their keys (repeat for several folders)." placeholder:"DIR"`
	Dirs    []string `arg:"" name:"CACHE_DIR" help:"Compile-cache folders (TF-IPU executable_cache_path, PopART/PopTorch cachePath, JAX jax_compilation_cache_dir, PyTorch/XLA XLA_PERSISTENT_CACHE_PATH, NEURON_COMPILE_CACHE_URL, vLLM torch_compile_cache)."`
}

func (c *cacheCmd) Run(e *env) error {
	if err := c.check("cache"); err != nil {
		return err
	}
	use, err := cache.ReadLogUse(c.Log, e.stdin)
	if err != nil {
		return usage(err)
	}
	var folders []cache.Folder
	for _, d := range c.Dirs {
		folders = append(folders, cache.Folder{Name: d, FS: os.DirFS(d)})
	}
	inv, err := cache.Take(folders, use)
	if err != nil {
		return usage(err)
	}
	e.log.Debug("inventory", "entries", inv.Count, "bytes", inv.Bytes, "unused", inv.Unused)
	r := &report.Cache{Dirs: c.Dirs, Inventory: inv, LogsGiven: len(c.Log) > 0, AgainstDirs: c.Against}
	if len(c.Against) > 0 {
		var others []cache.Folder
		for _, d := range c.Against {
			others = append(others, cache.Folder{Name: d, FS: os.DirFS(d)})
		}
		a, err := cache.Take(others, cache.NewLogUse())
		if err != nil {
			return usage(err)
		}
		r.Against = cache.Compare(a, inv)
	}
	return c.render(e, r)
}
