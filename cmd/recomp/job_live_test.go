//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/recomp/recomp/report"
)

// TestLiveRecompRunJob runs the ranks-job program (four JAX processes, jax.distributed on CPU)
// as a launcher would: each rank under its own `recomp run`, with RANK and WORLD_SIZE in its
// environment (rank 3 without: JAX's process index, read by recomp's probe, names it), into run
// folders whose names say nothing of the rank (gold is rank 0, blue rank 2). recomp ranks, scan and guard --ranks-consistent, given the folder of run folders, name the
// ranks by the environment each manifest recorded and find the two that departed: rank 0 (its
// own eval program at step 3) and rank 2 (a ragged shard at step 6, batch size).
func TestLiveRecompRunJob(t *testing.T) {
	py := livePython(t, "RECOMP_LIVE_JAX_0_12", "the job was not run through recomp run")
	bin := filepath.Join(t.TempDir(), "recomp")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "localhost:0")
	if err != nil {
		t.Fatal(err)
	}
	coordinator := l.Addr().String()
	l.Close()
	gen, _ := filepath.Abs("../../testdata/runs/gen/jax_runs.py")
	job := filepath.Join(t.TempDir(), "job")
	names := []string{"gold", "red", "blue", "green"}
	var wg sync.WaitGroup
	outs := make([][]byte, 4)
	errs := make([]error, 4)
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(bin, "run", "--out", filepath.Join(job, name), "--", py, gen, "--run", "ranks-job")
			// PYTHONUNBUFFERED as the generator runs it: through pipes (no terminal here) Python holds
			// its prints back, and the step lines would arrive after the compile lines they follow
			cmd.Env = append(os.Environ(), "JAX_PLATFORMS=cpu", "PYTHONUNBUFFERED=1", fmt.Sprint("RECOMP_RANK=", i), "RECOMP_RANKS=4", "RECOMP_COORDINATOR="+coordinator)
			if i != 3 { // rank 3's launcher said nothing: JAX's process index, read by the probe, names it
				cmd.Env = append(cmd.Env, fmt.Sprint("RANK=", i), "WORLD_SIZE=4")
			}
			outs[i], errs[i] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	for i := range names {
		if errs[i] != nil {
			t.Fatalf("rank %d: %v\n%s", i, errs[i], outs[i])
		}
	}
	want := map[string]string{"0": "jit_eval_step", "2": "jit_grad_step"}
	check := func(what string, doc *report.RanksJSON) {
		t.Helper()
		if len(doc.Ranks) != 4 || len(doc.Divergences) != 2 {
			t.Fatalf("%s: %d ranks, divergences %+v", what, len(doc.Ranks), doc.Divergences)
		}
		for i, r := range doc.Ranks {
			from := map[bool]string{true: "probe", false: "environment"}[i == 3]
			if r.Rank != fmt.Sprint(i) || r.RankFrom != from || filepath.Base(r.Name) != names[i] {
				t.Errorf("%s: rank %d: %q from %q, named %q", what, i, r.Rank, r.RankFrom, r.Name)
			}
		}
		for _, d := range doc.Divergences {
			step := map[string]int{"0": 3, "2": 6}[d.Rank]
			if programName(d.Program) != want[d.Rank] || d.Step == nil || *d.Step != step || !d.Compiled {
				got := -1
				if d.Step != nil {
					got = *d.Step
				}
				t.Errorf("%s: rank %s departed at step %d: %+v, want %s at step %d", what, d.Rank, got, d, want[d.Rank], step)
			}
			if d.Rank == "2" && (d.Cause == nil || d.Cause.Kind != "batch_size") {
				t.Errorf("%s: rank 2's cause %+v, want batch_size", what, d.Cause)
			}
		}
	}
	code, stdout, stderr := runRecomp("ranks", "--format", "json", job)
	var doc report.RanksJSON
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 1 {
		t.Fatalf("ranks: exit %d: %v\n%s", code, err, stderr)
	}
	check("ranks", &doc)
	code, stdout, stderr = runRecomp("scan", "--format", "json", job)
	var sc report.ScanJSON
	if err := json.Unmarshal([]byte(stdout), &sc); err != nil || code != 0 || sc.Ranks == nil || sc.Verdict == nil {
		t.Fatalf("scan: exit %d: %v\n%s", code, err, stderr)
	}
	check("scan", sc.Ranks)
	if v := sc.Verdict; v.Processes != 4 || v.SlowestSeconds <= 0 || v.SlowestSeconds >= v.CompileSeconds || v.RecompileSeconds >= v.CompileSeconds/2 {
		t.Errorf("scan: verdict %+v: the job's sum is not one process's time, and a rank's first compilation is not a recompilation", v)
	}
	if code, _, stderr := runRecomp("guard", "--ranks-consistent", job); code != 1 {
		t.Errorf("guard --ranks-consistent: exit %d\n%s", code, stderr)
	}
}
