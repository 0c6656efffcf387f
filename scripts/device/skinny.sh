#!/usr/bin/env bash
# Lab 09 rung 2 (the skinny GEMM, M = 1..16) on a GPU, for the lead's batched run:
#   bash scripts/device/skinny.sh BUILD_DIR OUT_DIR
# Steps, each logged under OUT_DIR, none stopping the others; OUT_DIR/summary.txt gets one
# line per step and the tables (at most 40 lines):
#   1. the candidates probe (scripts/probes/skinny_variants.cu, compiled here with nvcc): every
#      candidate checked against an fp64 reference (timed and odd shapes), then timed beside
#      cuBLAS and cudaMemcpy, interleaved, L2 flushed, medians; its table;
#   2. the skeleton of rung 2: `roofline run` must say INCORRECT (exit 1) at M = 1 and 16;
#   3. compute-sanitizer over the solution on the odd shapes (K = 4099 and 520, N = 1, 17, 33,
#      M = 3, 9, 20);
#   4. `roofline grade 09-decode/skinny_mM --solutions` for M = 1, 2, 4, 8, 16: verified on the
#      lab's verify shapes, then timed beside cuBLAS in the same run.
# ~40 s on an H200 once built (the probe's nvcc compile ~15 s of it).
set -u
BUILD=${1:?usage: skinny.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: skinny.sh BUILD_DIR OUT_DIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
BUILD=$(cd "$BUILD" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
R="$BUILD/roofline"
LAB=09-decode
summary="$OUT/summary.txt"
: > "$summary"
log() { echo "$@" | tee -a "$summary"; }
step() {  # step NAME COMMAND...: runs it with its output in OUT/NAME.log, logs rc and seconds
  local name=$1; shift
  local s=$(date +%s)
  "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  log "$name: rc=$rc in $(( $(date +%s) - s )) s"
  return 0
}

log "== skinny GEMM $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1)"
step build cmake --build "$BUILD" --target roofline lab-$LAB solution-$LAB

# 1. The candidates: correctness first, then the table (us, TB/s on W, % of cuBLAS).
step probe-compile nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -Igrader/include \
  -o "$OUT/skinny_variants" scripts/probes/skinny_variants.cu -lcublas
if [[ -x "$OUT/skinny_variants" ]]; then
  step probe "$OUT/skinny_variants" 40
  grep -E "^verify" "$OUT/probe.log" | sed 's/^verify *//; s/ correct on all shapes/ ok/' | paste -sd, | sed 's/^/  verify: /' >> "$summary"
  grep -E "WRONG" "$OUT/probe.log" | head -3 >> "$summary"
  grep -E "^median|^M  |^[a-zA-Z0-9_()]+ +\| " "$OUT/probe.log" | cut -c1-200 >> "$summary"
  grep -E "registers" "$OUT/probe.log" | sed 's/^ */  /' > "$OUT/probe-registers.txt"
  rm -f "$OUT/skinny_variants"
fi

# 2. The skeleton: INCORRECT (exit 1), never correct, never a crash.
for v in skinny_m1 skinny_m16; do
  "$R" --build-dir "$BUILD" run "$LAB/$v" --no-build > "$OUT/skeleton-$v.log" 2>&1
  rc=$?
  log "skeleton $v: rc=$rc $([[ $rc == 1 ]] && echo 'INCORRECT, as it should be' || echo 'UNEXPECTED: want 1')"
done

# 3. Out-of-bounds reads and writes of the solution on the odd shapes.
step sanitizer-skinny compute-sanitizer --tool memcheck --error-exitcode 9 "$BUILD/labs/solution-$LAB" \
  --variant skinny_m4 --mode verify --atol 0.01 --rtol 0.008 --max-rel-l2 0.004 \
  --verify-shape m=1,n=17,k=4099 --verify-shape m=3,n=1,k=1000 --verify-shape m=9,n=33,k=520 \
  --verify-shape m=16,n=300,k=4096 --verify-shape m=20,n=100,k=2048 --result -
grep -E "ERROR SUMMARY" "$OUT/sanitizer-skinny.log" | head -1 | sed 's/^/  /' >> "$summary"

# 4. The solution graded beside cuBLAS, one variant at a time.
for v in skinny_m1 skinny_m2 skinny_m4 skinny_m8 skinny_m16; do
  "$R" --build-dir "$BUILD" grade "$LAB/$v" --solutions --no-build > "$OUT/grade-$v.log" 2>&1
  rc=$?
  log "grade $v: rc=$rc $(grep -E "CORRECT" "$OUT/grade-$v.log" | head -1 | awk '{print $2}')" \
    "$(grep -E "^  (time|rate) " "$OUT/grade-$v.log" | head -2 | sed 's/ median (.*//; s/^  *//' | paste -sd' ' | cut -c1-130)"
done
mkdir -p "$OUT/results" && cp .roofline/results/$LAB/solutions/skinny_*.json "$OUT/results/" 2>/dev/null
log "== done $(date -u +%FT%TZ)"
