#!/usr/bin/env bash
# spawn-recompile.sh OUT — regenerate explain/testdata/spawn-recompile: spawn_recompile.py (two
# multiprocessing spawn workers, each compiling one jitted step for 8 rows and then for 9 or
# 10) run under `recomp run` with JAX 0.12 on CPU. Each worker dumps into dump/pid-<its id>/
# (XLA numbers every process's modules from 0): the run folder whose truth is one
# recompilation per worker, each explained by its own worker's two modules. run.log,
# probe.jsonl, manifest.json and the dump are kept. Run from the repository root.
set -euo pipefail
out=${1:?usage: spawn-recompile.sh OUT}
py=$(testdata/runs/gen/venv.sh testdata/runs/gen/jax-0.12.txt)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/recomp" ./cmd/recomp
# Run from the temporary folder, the venv linked there as venv/: the run names no path of this
# machine (internal/shape's TestNoMachinePathInTestdata).
cp testdata/runs/gen/spawn_recompile.py "$bin/"
ln -s "$(dirname "$(dirname "$py")")" "$bin/venv"
run=$bin/run
(cd "$bin" && JAX_PLATFORMS=cpu ./recomp run --out run -- venv/bin/python spawn_recompile.py >/dev/null)
rm -rf "$out"
mkdir -p "$out"
cp -r "$run/run.log" "$run/probe.jsonl" "$run/manifest.json" "$run/dump" "$out/"
echo "spawn-recompile.sh: $(grep -c 'Finished XLA compilation' "$out/run.log") compilations in $out/run.log, $(find "$out/dump" -type f | wc -l) modules dumped" >&2
