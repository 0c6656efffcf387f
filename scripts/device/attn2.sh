#!/usr/bin/env bash
# Lab 07 rung 2 (fused attention, mma.sync) on a GPU, for the lead's batched run:
#   bash scripts/device/attn2.sh BUILD_DIR OUT_DIR
# Steps, each logged under OUT_DIR, none stopping the others; OUT_DIR/summary.txt gets one
# line per step and the probe's table (at most 40 lines):
#   1. correctness: rung 2's solution, plain and causal, through `roofline run --solutions`
#      (the lab's verify shapes: seq 1, 17, 64, 1000, 2113, head_dim 64 and 128); the skeleton
#      must say INCORRECT; compute-sanitizer memcheck at small odd lengths (the edge-tile
#      copies, plain at head_dim 128 and causal at 64);
#   2. the candidates probe (scripts/probes/attn2_variants.cu, compiled here with nvcc against
#      cuDNN, -Xptxas -v for spills): rung 2 as run 62 measured it and each tuning of the
#      current rung 2, checked on odd shapes and against cuDNN, then timed interleaved with
#      cuDNN at 4k and 16k, plain and causal; its compact table;
#   3. `roofline grade 07-attention/VARIANT --solutions` for fused and fused_causal (lab.yaml's
#      two rung 2 variants, seq 4096), each beside cuDNN in the same run (skipped once the
#      script has run 70 s; the probe gives the 16k rows).
# Meant to take under 90 s on an H200 once BUILD_DIR is built.
set -u
BUILD=${1:?usage: attn2.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: attn2.sh BUILD_DIR OUT_DIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
BUILD=$(cd "$BUILD" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
R="$BUILD/roofline"
LAB=07-attention
START=$(date +%s)
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

log "== attn2 (lab 07 rung 2) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1)"
step build cmake --build "$BUILD" --target roofline lab-$LAB solution-$LAB

# 1. Correctness on the lab's verify shapes, the skeleton, then the sanitizers on small shapes.
for v in fused fused_causal; do
  timeout 60 "$R" --build-dir "$BUILD" run "$LAB/$v" --solutions --no-build > "$OUT/run-$v.log" 2>&1
  rc=$?
  log "solution $v: rc=$rc $(grep -oE "\b(INCORRECT|CORRECT)\b" "$OUT/run-$v.log" | head -1)"
done
timeout 60 "$R" --build-dir "$BUILD" run "$LAB/fused" --no-build > "$OUT/skeleton-fused.log" 2>&1
rc=$?
log "skeleton fused: rc=$rc $([[ $rc == 1 ]] && echo 'INCORRECT, as it should be' || echo 'UNEXPECTED: want 1')"
tol="--atol 1e-2 --rtol 1e-2 --max-rel-l2 6e-3"
for spec in "memcheck fused batch=1,heads=1,seq=200,head_dim=128" \
            "memcheck fused_causal batch=1,heads=2,seq=333,head_dim=64"; do
  set -- $spec
  timeout 60 compute-sanitizer --tool "$1" --error-exitcode 99 "$BUILD/labs/solution-$LAB" --variant "$2" \
    --mode verify --verify-shape "$3" --seed 7 $tol --result - > "$OUT/sanitizer-$1-$2.log" 2>&1
  log "$1 $2 $3: rc=$? $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitizer-$1-$2.log" | tail -1)"
done

# 2. The candidates: correctness first, then the table (TFLOP/s, % of cuDNN), registers and spills.
CUDNN_INC=$(sed -n 's/^ROOFLINE_CUDNN_INCLUDE_DIR:PATH=//p' "$BUILD/CMakeCache.txt")
CUDNN_LIB=$(sed -n 's/^ROOFLINE_CUDNN_LIBRARY:FILEPATH=//p' "$BUILD/CMakeCache.txt")
step probe-compile nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -Igrader/include \
  -Igrader/problems/attention ${CUDNN_INC:+-I"$CUDNN_INC"} -o "$OUT/attn2_variants" scripts/probes/attn2_variants.cu \
  grader/problems/attention/cudnn_sdpa.cpp ${CUDNN_LIB:-"-lcudnn"} ${CUDNN_LIB:+-Xlinker -rpath=$(dirname "$CUDNN_LIB")}
grep -cE "[1-9][0-9]* bytes spill" "$OUT/probe-compile.log" | sed 's/^/  kernels with spills: /' >> "$summary"
if [[ -x "$OUT/attn2_variants" ]]; then
  step probe timeout 60 "$OUT/attn2_variants" 20
  grep -E "FAILED|WRONG|refused|error" "$OUT/probe.log" | head -4 >> "$summary"
  grep -E "^\| |all candidates|SOME CANDIDATE" "$OUT/probe.log" | cut -c1-120 >> "$summary"
  rm -f "$OUT/attn2_variants"
fi

# 3. The solution graded beside cuDNN, one variant at a time, while the time budget lasts.
for v in fused fused_causal; do
  if (( $(date +%s) - START > 70 )); then log "grade $v: skipped (time budget)"; continue; fi
  timeout 40 "$R" --build-dir "$BUILD" grade "$LAB/$v" --solutions --no-build > "$OUT/grade-$v.log" 2>&1
  rc=$?
  log "grade $v: rc=$rc $(grep -oE "\b(INCORRECT|CORRECT)\b" "$OUT/grade-$v.log" | head -1)" \
    "$(grep -E "^  (time|rate|SM clock)" "$OUT/grade-$v.log" | head -3 | sed 's/ median (.*//; s/^  *//' | paste -sd' ' | cut -c1-150)"
done
mkdir -p "$OUT/results" && cp .roofline/results/$LAB/solutions/fused*.json "$OUT/results/" 2>/dev/null
log "== done in $(( $(date +%s) - START )) s $(date -u +%FT%TZ)"
