// Command writeprobe writes recomp run's probe, assembled from the units' hooks as recomp run
// assembles it, into DIR/.recomp-probe and prints that folder: driver.py puts it on PYTHONPATH
// for a scenario with spec "probe" when RECOMP_PROBE_DIR does not name one already.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/recomp/recomp/runner"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: writeprobe DIR")
		os.Exit(2)
	}
	dir, err := filepath.Abs(os.Args[1])
	if err == nil {
		var p *runner.Probe
		if p, err = runner.WriteProbe(dir); err == nil {
			fmt.Println(p.Dir)
			return
		}
	}
	fmt.Fprintln(os.Stderr, "writeprobe:", err)
	os.Exit(1)
}
