package neuron_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/recomp/recomp/internal/scantest"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/logscan"
)

func events(t *testing.T, log string) []string {
	t.Helper()
	evs, st := scantest.Scan(t, log, logscan.Options{})
	if st.Unread != 0 {
		t.Errorf("unread lines %+v", st.UnreadLines)
	}
	var out []string
	for _, ev := range evs {
		out = append(out, fmt.Sprintf("%s %s %s %d %s", ev.Kind, ev.Producer, ev.Hash, ev.Line, ev.Stamp))
	}
	return out
}

// Each wording from a real paste, the source in the comment.
func TestMessages(t *testing.T) {
	for _, c := range []struct {
		name, log string
		want      []string
	}{
		// aws-neuron/aws-neuron-sdk#872 (torch-neuronx, 2024): a cache miss compiled, then PASS
		{"compile", "2024-04-12 07:13:06.000296:  271334  INFO ||NEURON_CACHE||: Compile cache path: /var/tmp/neuron-compile-cache\n" +
			"2024-04-12 07:13:06.000297:  271334  INFO ||NEURON_CC_WRAPPER||: Call compiler with cmd: neuronx-cc compile --target=trn1 --framework=XLA /tmp/ubuntu/neuroncc_compile_workdir/50f29840-cfac-49a2-8d40-8b0369b8618f/model.MODULE_16518787498567201059+d41d8cd9.hlo_module.pb --output /tmp/ubuntu/neuroncc_compile_workdir/50f29840-cfac-49a2-8d40-8b0369b8618f/model.MODULE_16518787498567201059+d41d8cd9.neff --verbose=35\n" +
			".\nCompiler status PASS\nEpoch 0, Data index: 0, Loss: 0.1943359375\n",
			[]string{"compile_begin neuron MODULE_16518787498567201059+d41d8cd9 2 2024-04-12 07:13:06.000297", "compile_finished neuron  4 "}},
		// huggingface/optimum-neuron#407 (2024): the command as a Python list
		{"list form", "2024-01-11 05:53:27.000203:  741529  INFO ||NEURON_CC_WRAPPER||: Call compiler with cmd: ['neuronx-cc', '--target=trn1', 'compile', '--framework', 'XLA', '/tmp/ubuntu/neuroncc_compile_workdir/f3d0b9bd-9163-4262-93a9-665da103be08/model.MODULE_9214541117211669183+d41d8cd9.hlo.pb', '--output', '/tmp/ubuntu/neuroncc_compile_workdir/f3d0b9bd-9163-4262-93a9-665da103be08/model.MODULE_9214541117211669183+d41d8cd9.neff', '--verbose=35']\n",
			[]string{"compile_begin neuron MODULE_9214541117211669183+d41d8cd9 1 2024-01-11 05:53:27.000203"}},
		// huggingface/optimum-neuron#129 (2023, ||NCC_WRAPPER||): cache hits in a temporary
		// folder, glued after a tqdm bar
		{"cached neff", "2023-07-07 13:56:01.000284: INFO ||NCC_WRAPPER||: Using a cached neff at /tmp/tmpd29vse1h/neuron-compile-cache/neuronxcc-2.7.0.40+f7c6cf2a3/MODULE_7411938889920977621+d41d8cd9/model.neff. Exiting with a successfully compiled graph.\n" +
			"  0%|▌          | 1/290 [00:04<22:02,  4.58s/it]2023-07-07 13:56:06.000202: INFO ||NCC_WRAPPER||: Compile cache path: /tmp/tmpd29vse1h/neuron-compile-cache\n" +
			"2023-07-07 13:56:06.000307: INFO ||NCC_WRAPPER||: Using a cached neff at /tmp/tmpd29vse1h/neuron-compile-cache/neuronxcc-2.7.0.40+f7c6cf2a3/MODULE_12206097846517805328+d41d8cd9/model.neff. Exiting with a successfully compiled graph.\n",
			[]string{"cache_hit neuron MODULE_7411938889920977621+d41d8cd9 1 2023-07-07 13:56:01.000284",
				"framework_warning neuron  2 2023-07-07 13:56:06.000202",
				"cache_hit neuron MODULE_12206097846517805328+d41d8cd9 3 2023-07-07 13:56:06.000307"}},
		// huggingface/optimum-neuron#698 (2024): the Hub cache's misses; the one compiled here is
		// joined with its compilation, the others will be compiled (the log says) elsewhere
		{"hub misses", "neuronxcc-2.15.128.0+56dc5a86/MODULE_98ba4c9111d5882d2331+39f12043/model.done not found in aws-neuron/optimum-neuron-cache: the corresponding graph will be recompiled. This may take up to one hour for large models.\n" +
			"neuronxcc-2.15.128.0+56dc5a86/MODULE_a7b0021f88c35fba5c31+39f12043/model.log not found in aws-neuron/optimum-neuron-cache: the corresponding graph will be recompiled. This may take up to one hour for large models.\n" +
			"2024-09-21 16:15:28.000232:  4816  INFO ||NEURON_CC_WRAPPER||: Call compiler with cmd: neuronx-cc compile --target=trn1 --framework=XLA /tmp/no-user/neuroncc_compile_workdir/e555d4da-7536-45da-be1a-6ddf6c3e776d/model.MODULE_a7b0021f88c35fba5c31+39f12043.hlo_module.pb --output /tmp/no-user/neuroncc_compile_workdir/e555d4da-7536-45da-be1a-6ddf6c3e776d/model.MODULE_a7b0021f88c35fba5c31+39f12043.neff --model-type=transformer --auto-cast=none --execute-repetition=1 --verbose=35\n",
			[]string{"cache_miss neuron MODULE_a7b0021f88c35fba5c31+39f12043 2 ", "compile_begin neuron MODULE_a7b0021f88c35fba5c31+39f12043 3 2024-09-21 16:15:28.000232",
				"cache_miss neuron MODULE_98ba4c9111d5882d2331+39f12043 1 "}},
		// not a neuronx-cc status: prose
		{"prose", "Compiler status PASS rate is 90%\n", nil},
	} {
		got := events(t, c.log)
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// What the ledger makes of them: a Hub miss and its compilation are one compilation, a cached
// NEFF a cache hit, PASS ends the compilation, and a cache in a temporary folder is a finding.
func TestCounts(t *testing.T) {
	log := "2023-07-07 13:56:06.000202: INFO ||NCC_WRAPPER||: Compile cache path: /tmp/tmpd29vse1h/neuron-compile-cache\n" +
		"neuronxcc-2.15.128.0+56dc5a86/MODULE_a7b0021f88c35fba5c31+39f12043/model.done not found in aws-neuron/optimum-neuron-cache: the corresponding graph will be recompiled. This may take up to one hour for large models.\n" +
		"2023-07-07 13:56:06.000232:  4816  INFO ||NEURON_CC_WRAPPER||: Call compiler with cmd: neuronx-cc compile --target=trn1 --framework=XLA /tmp/w/model.MODULE_a7b0021f88c35fba5c31+39f12043.hlo_module.pb --output /tmp/w/model.MODULE_a7b0021f88c35fba5c31+39f12043.neff\n" +
		".\nCompiler status PASS\n" +
		"2023-07-07 13:56:40.000307: INFO ||NCC_WRAPPER||: Using a cached neff at /tmp/tmpd29vse1h/neuron-compile-cache/neuronxcc-2.7.0.40+f7c6cf2a3/MODULE_12206097846517805328+d41d8cd9/model.neff. Exiting with a successfully compiled graph.\n"
	s, err := ledger.ReadLogs([]ledger.Log{{Path: "run.log", Reader: strings.NewReader(log)}}, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sm := s.Ledger.Summary
	if sm.Compilations != 1 || sm.CacheHits != 1 || sm.CacheMisses != 1 {
		t.Errorf("summary %+v", sm)
	}
	found := false
	for _, f := range s.Ledger.Findings {
		if f.Kind == ledger.FindingFrameworkWarning && strings.Contains(f.Message, "temporary folder (/tmp/tmpd29vse1h/neuron-compile-cache)") &&
			strings.Contains(f.Advice, "NEURON_COMPILE_CACHE_URL") {
			found = true
		}
	}
	if !found {
		t.Errorf("no finding on the temporary cache: %+v", s.Ledger.Findings)
	}
}

// A MODULE_ is a graph's identity: two MODULE_ hashes are two programs compiled once each (not
// one graph that changed), and the same MODULE_ compiled twice is that graph compiled again
// with the same hash (its NEFF not taken from the cache).
func TestModuleIsTheGraph(t *testing.T) {
	call := func(at, mod string) string {
		return "2024-04-12 07:13:0" + at + ".000297:  271334  INFO ||NEURON_CC_WRAPPER||: Call compiler with cmd: neuronx-cc compile --target=trn1 --framework=XLA /tmp/w/model." + mod +
			".hlo_module.pb --output /tmp/w/model." + mod + ".neff --verbose=35\n.\nCompiler status PASS\n"
	}
	a, b := "MODULE_16518787498567201059+d41d8cd9", "MODULE_9214541117211669183+d41d8cd9"
	for _, c := range []struct {
		name, log  string
		recompiled string
		kind       ledger.FindingKind
	}{
		{"two graphs", call("1", a) + call("2", b), "", ""},
		{"the same graph again", call("1", a) + call("2", b) + call("3", b), b, ledger.FindingRecompiledSameHash},
	} {
		s, err := ledger.ReadLogs([]ledger.Log{{Path: "run.log", Reader: strings.NewReader(c.log)}}, ledger.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var recompiled []string
		for _, m := range s.Ledger.Modules {
			if m.Recompiled {
				recompiled = append(recompiled, m.Name)
			}
		}
		if strings.Join(recompiled, ",") != c.recompiled || len(s.Ledger.Modules) != 2 {
			t.Errorf("%s: recompiled %v of %d modules", c.name, recompiled, len(s.Ledger.Modules))
		}
		found := c.kind == ""
		for _, f := range s.Ledger.Findings {
			if f.Kind == ledger.FindingRecompiledNewHash {
				t.Errorf("%s: %s", c.name, f.Message)
			}
			found = found || f.Kind == c.kind && f.Module == b
		}
		if !found {
			t.Errorf("%s: no %s finding: %+v", c.name, c.kind, s.Ledger.Findings)
		}
	}
}
