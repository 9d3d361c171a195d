package ledger

import (
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/logscan"
)

// A log's supplement (the probe's compile records of a stack whose logging was off) goes into
// its process in time order: the compilation recorded before JAX's explanation of a retrace is
// the first, the one after it the recompilation it explains; undated, they follow the log.
func TestSupplementInTimeOrder(t *testing.T) {
	const log = `2026-12-02T00:00:02.000000000Z WARNING:jax._src.pjit:TRACING CACHE MISS at /home/me/train.py:64:12 (main):
2026-12-02T00:00:02.000000000Z   for train_step defined at /home/me/train.py:20
2026-12-02T00:00:02.000000000Z   all previously seen cache keys differ. For the closest previous key:
2026-12-02T00:00:02.000000000Z   different input types:
2026-12-02T00:00:02.000000000Z   * at x, now f32[24,8] and before f32[32,8]
2026-12-02T00:00:04.000000000Z step 3
`
	at := func(sec int) time.Time { return time.Date(2026, 12, 2, 0, 0, sec, 0, time.UTC) }
	compiled := func(sec int) []logscan.Event {
		ev := logscan.Event{Producer: logscan.ProducerJAX, Signal: "probe:compile", File: "probe.jsonl", Line: sec, Module: "jit_train_step", DateKnown: true}
		b, e := ev, ev
		b.Kind, b.Time = logscan.CompileBegin, at(sec)
		e.Kind, e.Time, e.Duration = logscan.CompileFinished, at(sec), time.Second
		return []logscan.Event{b, e}
	}
	sup := append(compiled(1), compiled(3)...)
	s, err := ReadLogs([]Log{{Path: "run.log", Reader: strings.NewReader(log), Supplement: sup}}, ReadOptions{SameProcess: true})
	if err != nil {
		t.Fatal(err)
	}
	rep := s.Ledger
	if rep.Summary.Compilations != 2 || rep.Summary.AfterWarmup != 1 || len(rep.Late) != 1 {
		t.Fatalf("compilations %d, after warm-up %d; want 2, 1", rep.Summary.Compilations, rep.Summary.AfterWarmup)
	}
	if u := rep.Late[0]; u.File != "probe.jsonl" || u.Line != 3 || !strings.Contains(u.Why, "now f32[24,8] and before f32[32,8]") {
		t.Errorf("the recompilation is %s:%d, why %q; want probe.jsonl:3 with JAX's explanation", u.File, u.Line, u.Why)
	}
	if rep.Procs[0].Evidence == 0 {
		t.Errorf("the supplement is no evidence of the process")
	}
}
