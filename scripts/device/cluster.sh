#!/usr/bin/env bash
# Lab 06's DSMEM row-sum rung and the mma.sync roof, on the GPU machine, for the lead's run:
#   bash scripts/device/cluster.sh BUILD_DIR OUT_DIR
# BUILD_DIR must hold a configured build; the targets below are built if missing (not
# counted). Steps, each logged under OUT_DIR, none stopping the others; OUT_DIR/summary.txt
# holds one line per step (at most 40 lines):
#   1. `roofline run` of the skeleton: expected INCORRECT (the sums are never written);
#   2. `roofline run --solutions`: CORRECT on every verify shape of the rung (a rank with no
#      chunk, uneven chunks, more groups than clusters), with the resident-cluster count the
#      launch was told (ROOFLINE_LAB04_DIAG=1);
#   3. `roofline ceilings`: the measured ceilings, the new bf16 mma.sync row among them;
#   4. `roofline grade --solutions` of the rung beside its peer (cudaMemcpy, same run), and
#      of part 1 for the same-run comparison;
#   5. `roofline grade --solutions` of lab 03 rung 9: its report shows its fraction of cuBLAS
#      and of the mma.sync roof measured in step 3.
# Expected run time on an H200 once built: ~45-60 s, most of it step 3.
set -u
BUILD=${1:?usage: cluster.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: cluster.sh BUILD_DIR OUT_DIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BUILD=$(cd "$BUILD" && pwd)
R="$BUILD/roofline"
FLAGS="--root $ROOT --build-dir $BUILD"
LOG="$OUT/predictions.yaml"   # the gradings' log: never the course's
summary="$OUT/summary.txt"
: > "$summary"
say() { echo "$@" | tee -a "$summary"; }
verdict() { grep -m1 -oE "(INCORRECT|CORRECT|FAILED|REFUSED)[^.]*" "$1" | cut -c1-110; }
export PATH=/usr/local/cuda/bin:$PATH

say "== cluster (lab 06 part 9, mma.sync roof) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
cmake --build "$BUILD" --target roofline roofline-ceilings lab-06-async solution-06-async lab-03-gemm solution-03-gemm \
  > "$OUT/build.txt" 2>&1
say "build: rc=$? (not counted)"
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }

timeout 60 $R $FLAGS run 06-async/row_sum_cluster_dsmem --no-build > "$OUT/1-skeleton.txt" 2>&1
say "1. skeleton run: rc=$? (expected 1) $(verdict "$OUT/1-skeleton.txt")"

ROOFLINE_LAB04_DIAG=1 timeout 60 $R $FLAGS run 06-async/row_sum_cluster_dsmem --solutions --no-build \
  > "$OUT/2-solution.txt" 2>&1
say "2. solution run: rc=$? (expected 0) $(verdict "$OUT/2-solution.txt")"
say "   $(grep -m1 -oE 'cudaOccupancyMaxActiveClusters = [0-9]+[^;]*' "$OUT/2-solution.txt")"
grep -E "rows=|skipped" "$OUT/2-solution.txt" | head -8 | sed 's/^/   /' | cut -c1-120 | tee -a "$summary"

timeout 240 $R $FLAGS ceilings > "$OUT/3-ceilings.txt" 2>&1
say "3. ceilings: rc=$? [$(elapsed) s]"
grep -E "mma.sync|cuBLAS bf16|cudaMemcpy" "$OUT/3-ceilings.txt" | sed 's/^/   /' | tee -a "$summary"

for v in row_sum_cluster_dsmem row_sum_tma_ring; do
  timeout 120 $R $FLAGS grade "06-async/$v" --solutions --no-build --log "$LOG" --json > "$OUT/4-grade-$v.json" \
    2> "$OUT/4-grade-$v.err"
  rc=$?
  say "4. grade $v: rc=$rc $(python3 - "$OUT/4-grade-$v.json" <<'PY' 2>/dev/null
import json, sys
d = json.load(open(sys.argv[1]))
d = d[0] if isinstance(d, list) else d
t = (d.get('time_s') or {}).get('median') or 0
print(f"{d.get('outcome')} {t*1e6:.1f} us, {d.get('achieved', 0):.3f} {d.get('unit', '')}, "
      f"{100*(d.get('fraction_of_peer') or 0):.1f}% of {(d.get('peer') or {}).get('name')}, "
      f"points {(d.get('points') or {}).get('total', 0):.1f}")
PY
)"
done
say "   [$(elapsed) s]"

timeout 120 $R $FLAGS grade 03-gemm/r9_pipelined --solutions --no-build --log "$LOG" > "$OUT/5-grade-r9.txt" 2>&1
say "5. grade 03-gemm/r9_pipelined: rc=$? $(verdict "$OUT/5-grade-r9.txt")"
grep -E "^  rate|mma.sync roof|of the roofline" "$OUT/5-grade-r9.txt" | sed 's/^/   /' | cut -c1-150 | tee -a "$summary"
say "done [$(elapsed) s]"
