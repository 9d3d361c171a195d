package main

import (
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
	inv, against, err := cache.Survey(c.Dirs, c.Log, c.Against, e.stdin)
	if err != nil {
		return usage(err)
	}
	e.log.Debug("inventory", "entries", inv.Count, "bytes", inv.Bytes, "unused", inv.Unused)
	return c.render(e, &report.Cache{Dirs: c.Dirs, Inventory: inv, LogsGiven: len(c.Log) > 0, Against: against, AgainstDirs: c.Against})
}
