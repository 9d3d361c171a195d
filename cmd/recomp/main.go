// Command recomp is the recompilation detective for XLA-based ML stacks: it reads the logs and
// HLO dumps a run leaves behind and says what was compiled, what the executable cache served,
// and why a graph was compiled again.
package main

import "os"

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }
