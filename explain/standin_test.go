package explain

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/recomp/recomp/ledger"
)

// A log that holds JAX's record of a compile request (a persistent-cache hit) had JAX's logging
// on: the probe's compile record of it (JAX's backend-compile event, which a hit also sends) is
// no compilation of its own, and no stack is said to be judged on the probe.
func TestNoStandInBesideTheStacksOwnRecords(t *testing.T) {
	dir := t.TempDir()
	log := "2026-12-02T00:00:02.000000000Z WARNING:jax._src.compiler:Persistent compilation cache hit for 'jit_train_step' with key 'jit_train_step-3aab'\n" +
		"2026-12-02T00:00:03.000000000Z step 1\n"
	probe := `{"framework":"jax","event":"compile","seconds":0.01,"name":"jit(train_step)","t":1796169601.5,"pid":7}` + "\n"
	for name, text := range map[string]string{"run.log": log, "probe.jsonl": probe} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Logs([]string{dir}, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sum := s.Ledger.Summary; sum.Compilations != 0 || sum.CacheHits != 1 || len(s.Ledger.Silenced) != 0 {
		t.Errorf("compilations %d, cache hits %d, judged on the probe %v; want 0, 1, none", sum.Compilations, sum.CacheHits, s.Ledger.Silenced)
	}
}

// JAX 0.4's compile records name no function: which program each compiled cannot be told, and
// read as compilations they would all be one unnamed program compiled again. They stand for
// nothing: the silent log stays without evidence (inconclusive), never a false recompilation.
func TestNoStandInForUnnamedRecords(t *testing.T) {
	dir := t.TempDir()
	log := "2026-12-02T00:00:02.000000000Z step 0\n2026-12-02T00:00:03.000000000Z step 1\n"
	probe := `{"framework":"jax","event":"trace","seconds":0.01,"name":"train_step","t":1796169601.1,"pid":7}
{"framework":"jax","event":"compile","seconds":0.01,"t":1796169601.5,"pid":7}
{"framework":"jax","event":"trace","seconds":0.01,"name":"eval_step","t":1796169602.1,"pid":7}
{"framework":"jax","event":"compile","seconds":0.01,"t":1796169602.5,"pid":7}
`
	for name, text := range map[string]string{"run.log": log, "probe.jsonl": probe} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Logs([]string{dir}, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sum := s.Ledger.Summary; sum.Compilations != 0 || sum.AfterWarmup != 0 || len(s.Ledger.Silenced) != 0 {
		t.Errorf("compilations %d, after warm-up %d, judged on the probe %v; want none", sum.Compilations, sum.AfterWarmup, s.Ledger.Silenced)
	}
}
