#!/usr/bin/env bash
# scan_vs_grep.sh [MB]: time `recomp scan` against GNU grep -c -E with the same anchor strings on
# a generated TF-VLOG-style log where 1 line in 500 matters. Deterministic input; runs
# interleaved, three rounds; prints seconds, peak RSS and the ratio recomp/grep.
set -euo pipefail
mb=${1:-300}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/recomp" ./cmd/recomp)
awk -v limit=$((mb * 1048576)) 'BEGIN {
  n[0] = "I tensorflow/compiler/plugin/poplar/driver/poplar_executor.cc:2201] Executing on Poplar stream ordinal 0 of type ipu"
  n[1] = "I tensorflow/compiler/xla/service/hlo_pass_pipeline.cc:301] Running HLO pass pipeline on module cluster_7: optimization"
  n[2] = "I tensorflow/core/common_runtime/executor.cc:812] Process node: 17 step 3 {{node while/body/_1}} = _Recv[client_terminated=false]() device: /job:localhost/replica:0/task:0/device:IPU:0"
  for (i = 0; size < limit; i++) {
    if (i % 500 == 499) l = sprintf("2024-05-02 10:00:02.%06d: I tensorflow/compiler/plugin/poplar/driver/poplar_compiler.cc:1487] Begin XLA compilation: cluster_%d  (Hash: 0x%x) for ordinal  0", i % 1000000, i % 7, i)
    else l = sprintf("2024-05-02 10:00:02.%06d: %s", i % 1000000, n[i % 3])
    print l; size += length(l) + 1
  }
}' > "$tmp/noisy.log"
pattern='ompil|phase: |xecutable|\.poplar_exec|\.xla_engine|ngine loaded'
# GNU grep stops at the first match when its output is /dev/null: both write to files.
cat "$tmp/noisy.log" > /dev/null # warm the page cache
echo "input: $(du -m "$tmp/noisy.log" | cut -f1) MB, $(wc -l < "$tmp/noisy.log") lines"
for round in 1 2 3; do
  g=$( { /usr/bin/time -f '%e %M' grep -c -E "$pattern" "$tmp/noisy.log" > "$tmp/grep.out"; } 2>&1 )
  r=$( { /usr/bin/time -f '%e %M' "$tmp/recomp" scan --format json "$tmp/noisy.log" > "$tmp/recomp.out"; } 2>&1 )
  set -- $g $r
  awk -v g=$1 -v gm=$2 -v r=$3 -v rm=$4 -v n=$round 'BEGIN {
    printf "round %d: grep %.2f s (%d KB)  recomp %.2f s (%d KB)  ratio %.2f\n", n, g, gm, r, rm, (g > 0 ? r / g : 0) }'
done
