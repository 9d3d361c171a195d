package logscan_test

import (
	"fmt"
	"strings"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/logscan"
)

func Example() {
	log := `2021-03-10 12:34:56.789012: I tensorflow/compiler/plugin/poplar/driver/poplar_compiler.cc:1487] Begin XLA compilation: cluster_3  (Hash: 0x1b2c3d4e5f607182) for ordinal  0
2021-03-10 12:34:56.790001: I tensorflow/compiler/plugin/poplar/driver/poplar_compiler.cc:1591] Loaded cluster_3 from /tmp/cache/9a8b7c6d5e4f3a2.poplar_exec
`
	s := logscan.NewScanner(strings.NewReader(log), "run.log", logscan.Options{Grammar: frameworks.Grammar()})
	for s.Scan() {
		ev := s.Event()
		fmt.Println(strings.Join(strings.Fields(fmt.Sprint(ev.Line, " ", ev.Kind, " ", ev.Module, " ", ev.Hash, " ", ev.Path)), " "))
	}
	// Output:
	// 1 compile_request cluster_3 0x1b2c3d4e5f607182
	// 2 cache_hit cluster_3 /tmp/cache/9a8b7c6d5e4f3a2.poplar_exec
}
