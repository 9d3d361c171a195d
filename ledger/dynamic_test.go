package ledger

import (
	"strings"
	"testing"
)

// A size dynamo then made dynamic (symbolic_shapes' create_symbol in the compilation that
// followed the guard failure) is marked on the compilation's fact, with the stack's remedy; a
// size it did not make dynamic (dynamic=False), or a Python number's symbol, is told apart.
func TestDimensionMadeDynamic(t *testing.T) {
	const head = "I1202 03:30:00.000000 7000 "
	log := func(symbol string) string {
		var b strings.Builder
		for _, l := range []string{
			"torch/_dynamo/symbolic_convert.py:3842] [0/0] Step 1: torchdynamo start tracing f /w/m.py:3",
			"torch/_dynamo/output_graph.py:2167] [0/0] Step 2: calling compiler function inductor",
			"torch/_dynamo/output_graph.py:2172] [0/0] Step 2: done compiler function inductor",
			"torch/_dynamo/guards.py:4181] [0/1] [__recompiles] Recompiling function f in /w/m.py:3",
			"torch/_dynamo/guards.py:4181] [0/1] [__recompiles]     triggered by the following guard failure(s):",
			"torch/_dynamo/guards.py:4181] [0/1] [__recompiles]     - 0/0: tensor 'ids' size mismatch at index 1. expected 5, actual 6",
			"torch/_dynamo/symbolic_convert.py:3842] [0/1] Step 1: torchdynamo start tracing f /w/m.py:3",
			symbol,
			"torch/_dynamo/output_graph.py:2167] [0/1] Step 2: calling compiler function inductor",
			"torch/_dynamo/output_graph.py:2172] [0/1] Step 2: done compiler function inductor",
		} {
			if l != "" {
				b.WriteString(head + l + "\n")
			}
		}
		return b.String()
	}
	for _, c := range []struct {
		name, symbol string
		dynamic      bool
	}{
		{"the length made dynamic", "torch/fx/experimental/symbolic_shapes.py:5114] [0/1] create_symbol s27 = 6 for L['ids'].size()[1] [2, int_oo] return F.embedding(", true},
		{"another dimension made dynamic", "torch/fx/experimental/symbolic_shapes.py:5114] [0/1] create_symbol s3 = 2 for L['ids'].size()[0] [2, int_oo] x", false},
		{"a number's symbol", "torch/fx/experimental/symbolic_shapes.py:5114] [0/1] create_symbol zf86 = 0.25 for L['warm'] [-oo, oo] x", false},
		{"nothing made dynamic", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := ReadLogs([]Log{{Path: "m.log", Reader: strings.NewReader(log(c.symbol))}}, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if n := s.Ledger.Summary.UnreadRecords; n != 0 {
				t.Errorf("%d unread records", n)
			}
			var u *Unit
			for _, m := range s.Ledger.Modules {
				for _, x := range m.Units {
					if x.Seq == 2 {
						u = x
					}
				}
			}
			if u == nil || len(u.Facts) != 1 {
				t.Fatalf("no second compilation with one fact: %+v", u)
			}
			f := u.Facts[0]
			if f.Dynamic != c.dynamic || c.dynamic != strings.Contains(f.Change, "then dynamic") || c.dynamic != (f.Advice != "") {
				t.Errorf("fact %+v; made dynamic %v", f, c.dynamic)
			}
		})
	}
}
