#!/usr/bin/env bash
# Lab 06's ladder rungs 1, 4 and 5 on the GPU machine, for the lead's batched run:
#   bash scripts/device/ladder.sh BUILD_DIR OUT_DIR
# BUILD_DIR must hold a configured build; roofline and both lab 06 programs are built here
# if missing (not counted in the budget). Steps, each logged under OUT_DIR, none stopping
# the others; OUT_DIR/summary.txt (at most 40 lines) holds one line per check:
#   1. `roofline run` of each new skeleton: expected INCORRECT (outputs never written);
#   2. `roofline run --solutions` of each new variant on the lab's verify shapes: CORRECT;
#   3. odd shapes through the solution program directly (more row groups than SMs and not
#      a multiple of 132; K slices that wrap the ring; tile counts that leave a ragged wave);
#   4. `roofline grade --solutions` of each new variant, each beside its peer in the same
#      run (cudaMemcpy, cuBLAS), and of the rung above it (part 1's ring, part 3) for the
#      step between them, with our predicted fraction of the peer beside the measured one.
# About 45-60 s on an H200 once built (the ptxas check ~10 s, steps 1-3 ~20 s, step 4 ~30 s);
# LADDER_BUDGET_S (default 45, counted from step 1) stops step 4 early.
set -u
BUILD=${1:?usage: ladder.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: ladder.sh BUILD_DIR OUT_DIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BUILD=$(cd "$BUILD" && pwd)
R="$BUILD/roofline"
FLAGS="--root $ROOT --build-dir $BUILD"
BUDGET=${LADDER_BUDGET_S:-45}
summary="$OUT/summary.txt"
: > "$summary"
log() { echo "$@" | tee -a "$summary"; }
export PATH=/usr/local/cuda/bin:$PATH

NEW="row_sum_double_buffer wgmma_one_warpgroup_4096 wgmma_one_warpgroup_8192 wgmma_two_consumers_4096 wgmma_two_consumers_8192"
verdict() { grep -m1 -oE "\b(INCORRECT|CORRECT)\b" "$1" || echo "no verdict"; }

log "== lab 06 ladder $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
cmake --build "$BUILD" --target roofline lab-06-async solution-06-async > "$OUT/build.txt" 2>&1
log "build: rc=$? (not counted)"
# ptxas's C7515 (shown with -v) means it serialized a kernel's wgmmas; no GEMM rung may have it.
for f in solutions/06-async/kernels/0[378]_*.cu; do
  nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Igrader/include -Ilabs/06-async -Xptxas -v -c "$f" -o /dev/null \
    > "$OUT/ptxas-$(basename "$f" .cu).txt" 2>&1 &
done
wait
c7515=$(cat "$OUT"/ptxas-*.txt | grep -c C7515)
log "ptxas C7515 (wgmma serialized) in files 03, 07, 08: $c7515 (expected 0; ptxas-*.txt)"
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }

log "== 1. skeletons (expected INCORRECT)"
line=""
for v in $NEW; do
  timeout 60 $R $FLAGS run "06-async/$v" --no-build > "$OUT/skeleton-$v.txt" 2>&1
  rc=$?
  line+=" $v=$(verdict "$OUT/skeleton-$v.txt")(rc=$rc)"
done
log " $line"

log "== 2. solutions on the lab's verify shapes (expected CORRECT) [$(elapsed) s]"
line=""
for v in $NEW; do
  timeout 60 $R $FLAGS run "06-async/$v" --solutions --no-build > "$OUT/solution-$v.txt" 2>&1
  rc=$?
  line+=" $v=$(verdict "$OUT/solution-$v.txt")(rc=$rc)"
done
log " $line"

log "== 3. odd shapes through the solution program (expected passed) [$(elapsed) s]"
program="$BUILD/labs/solution-06-async"
odd() {  # variant shape tolerances...
  local v=$1 shape=$2; shift 2
  timeout 60 "$program" --variant "$v" --mode verify --verify-shape "$shape" "$@" --result "$OUT/odd-$v-$shape.json" \
    > "$OUT/odd-$v-$shape.txt" 2>&1
  local rc=$?
  local passed
  passed=$(python3 -c "
import json, sys
def walk(j):
    if isinstance(j, dict):
        for k, x in j.items():
            if k == 'passed' and isinstance(x, bool): yield x
            else: yield from walk(x)
    elif isinstance(j, list):
        for x in j: yield from walk(x)
r = list(walk(json.load(open(sys.argv[1]))))
print('passed' if r and all(r) else 'FAILED' if r else 'no result')" "$OUT/odd-$v-$shape.json" 2>/dev/null || echo "no result")
  log "  $v $shape: $passed (rc=$rc)"
}
row_tol="--atol 1e-3 --rtol 1e-5 --max-rel-l2 1e-5"
gemm_tol="--atol 1e-2 --rtol 8e-3 --max-rel-l2 4e-3"
odd row_sum_double_buffer rows=4256,cols=768 $row_tol      # 133 row groups: one block owns two
odd row_sum_double_buffer rows=32,cols=256 $row_tol        # one tile: no prefetch at all
odd wgmma_one_warpgroup_4096 m=192,n=768,k=448 $gemm_tol   # 7 K slices: the ring wraps once
odd wgmma_two_consumers_4096 m=384,n=768,k=448 $gemm_tol
odd wgmma_two_consumers_4096 m=128,n=256,k=128 $gemm_tol   # 2 K slices, fewer than the stages

log "== 4. grade --solutions, each beside its peer in the same run [$(elapsed) s]"
log "  variant                    outcome   time_us    % of peer  predicted (README)"
grade() {  # variant predicted-range
  local v=$1 predicted=$2
  if (( $(elapsed) > BUDGET )); then log "  $v: skipped (past the ${BUDGET} s budget)"; return; fi
  timeout 90 $R $FLAGS grade "06-async/$v" --solutions --no-build --json > "$OUT/grade-$v.json" 2> "$OUT/grade-$v.err"
  local rc=$?
  python3 - "$OUT/grade-$v.json" "$v" "$predicted" "$rc" <<'PY' 2>/dev/null | tee -a "$summary" || log "  $v: no JSON (rc=$rc, grade-$v.err)"
import json, sys
d = json.load(open(sys.argv[1]))
t = (d.get("time_s") or {}).get("median") or 0
print(f"  {sys.argv[2]:26} {d.get('outcome', '?'):9} {t*1e6:9.1f} {100*(d.get('fraction_of_peer') or 0):9.1f}%  "
      f"{sys.argv[3]:10} rc={sys.argv[4]}")
PY
}
grade row_sum_double_buffer    "80-90%"
grade row_sum_tma_ring         "(rung 2)"
grade wgmma_one_warpgroup_4096 "55-70%"
grade wgmma_two_consumers_4096 "85-92%"
grade wgmma_gemm_4096          "(rung 6)"
grade wgmma_one_warpgroup_8192 "55-70%"
grade wgmma_two_consumers_8192 "88-95%"
grade wgmma_gemm_8192          "(rung 6)"
log "== ladder done in $(elapsed) s (budget $BUDGET s)"
