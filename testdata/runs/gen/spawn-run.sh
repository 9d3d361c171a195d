#!/usr/bin/env bash
# spawn-run.sh SCRIPT OUT — regenerate a run folder of worker processes made under `recomp run`
# with JAX 0.12 on CPU: testdata/runs/gen/SCRIPT (spawn_workers.py: four multiprocessing spawn
# workers, each compiling three programs, for explain/testdata/spawn-workers;
# spawn_recompile.py: two workers, each compiling one step for 8 rows and again for 9 or 10,
# for explain/testdata/spawn-recompile). run.log interleaves the workers' records as one
# terminal got them, probe.jsonl holds JAX's own monitoring events with each worker's process
# id, and dump/ (kept when the run has one) each worker's modules in dump/pid-<its id>/. OUT
# gets run.log, probe.jsonl, manifest.json and dump/. Run from the repository root.
set -euo pipefail
script=${1:?usage: spawn-run.sh SCRIPT OUT}
out=${2:?usage: spawn-run.sh SCRIPT OUT}
py=$(testdata/runs/gen/venv.sh testdata/runs/gen/jax-0.12.txt)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/recomp" ./cmd/recomp
# Run from the temporary folder, the venv linked there as venv/: the run names no path of this
# machine (internal/shape's TestNoMachinePathInTestdata).
cp "testdata/runs/gen/$script" "$bin/"
ln -s "$(dirname "$(dirname "$py")")" "$bin/venv"
(cd "$bin" && JAX_PLATFORMS=cpu ./recomp run --out run -- venv/bin/python "$script" >/dev/null)
rm -rf "$out"
mkdir -p "$out"
cp "$bin/run/run.log" "$bin/run/probe.jsonl" "$bin/run/manifest.json" "$out/"
if [ -d "$bin/run/dump" ]; then
	cp -r "$bin/run/dump" "$out/"
fi
echo "spawn-run.sh: $(grep -c 'Finished XLA compilation' "$out/run.log") compilations in $out/run.log" >&2
