#!/usr/bin/env bash
# spawn-workers.sh OUT — regenerate explain/testdata/spawn-workers: spawn_workers.py (four
# multiprocessing spawn workers, each compiling three programs) run under `recomp run` with
# JAX 0.12 on CPU, so that run.log interleaves the workers' records as one terminal got them
# and probe.jsonl holds JAX's own monitoring events with each worker's process id (the truth
# explain's TestSpawnWorkers holds the report against). Only run.log, probe.jsonl and
# manifest.json are kept. Run from the repository root.
set -euo pipefail
out=${1:?usage: spawn-workers.sh OUT}
py=$(testdata/runs/gen/venv.sh testdata/runs/gen/jax-0.12.txt)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/recomp" ./cmd/recomp
gen=$(cd testdata/runs/gen && pwd)
run=$bin/run
(cd "$bin" && JAX_PLATFORMS=cpu ./recomp run --out "$run" -- "$py" "$gen/spawn_workers.py" >/dev/null)
mkdir -p "$out"
cp "$run/run.log" "$run/probe.jsonl" "$run/manifest.json" "$out/"
echo "spawn-workers.sh: $(grep -c 'Finished XLA compilation' "$out/run.log") compilations in $out/run.log" >&2
