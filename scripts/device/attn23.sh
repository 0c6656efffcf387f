#!/usr/bin/env bash
# Lab 08's mma.sync rungs (2: fused, 3: pipelined) on a GPU, for the lead's batched run:
#   bash scripts/device/attn23.sh BUILD_DIR OUT_DIR        (rung 3)
#   RUNG=2 bash scripts/device/attn23.sh BUILD_DIR OUT_DIR (rung 2; scripts/device/attn2.sh)
# Steps, each logged under OUT_DIR, none stopping the others; OUT_DIR/summary.txt gets one
# line per step and the probe's table (at most 40 lines):
#   1. correctness: the rung's solution, plain and causal, through `roofline run --solutions`
#      (the lab's verify shapes: seq 1, 17, 64, 1000, 2113, head_dim 64 and 128); the skeleton
#      must say INCORRECT; compute-sanitizer at small odd lengths (rung 3: racecheck, one
#      barrier a tile; memcheck on the edge-tile copies, plain at head_dim 128 for rung 2 and
#      causal at 64 for both);
#   2. the candidates probe (scripts/probes/attn2_variants.cu or attn23_variants.cu, compiled
#      here with nvcc against cuDNN, -Xptxas -v for spills): each tuning of the rung, checked on odd shapes and against cuDNN, then
#      timed interleaved with cuDNN at 4k and 16k, plain and causal; its compact table;
#   3. `roofline grade 08-attention/VARIANT --solutions` for the rung's variants in lab.yaml,
#      each beside cuDNN in the same run, while the time budget lasts.
# Meant to take under 90 s (rung 2) or 150 s (rung 3) on an H200 once BUILD_DIR is built.
set -u
BUILD=${1:?usage: attn23.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: attn23.sh BUILD_DIR OUT_DIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
BUILD=$(cd "$BUILD" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
R="$BUILD/roofline"
LAB=08-attention
RUNG=${RUNG:-3}
case $RUNG in
  2) V=fused; PROBE=attn2_variants; GRADED="fused fused_causal"; BUDGET_S=70; PROBE_S=60
     SANITIZE=("memcheck fused batch=1,heads=1,seq=200,head_dim=128" "memcheck fused_causal batch=1,heads=2,seq=333,head_dim=64") ;;
  3) V=pipelined; PROBE=attn23_variants; BUDGET_S=130; PROBE_S=90
     GRADED="pipelined pipelined_causal pipelined_16k pipelined_causal_16k"
     SANITIZE=("racecheck pipelined batch=1,heads=1,seq=200,head_dim=128" "memcheck pipelined_causal batch=1,heads=2,seq=333,head_dim=64") ;;
  *) echo "RUNG must be 2 or 3" >&2; exit 2 ;;
esac
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

log "== lab 08 rung $RUNG $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1)"
step build cmake --build "$BUILD" --target roofline lab-$LAB solution-$LAB

# 1. Correctness on the lab's verify shapes, the skeleton, then the sanitizers on small shapes.
for v in $V ${V}_causal; do
  timeout 60 "$R" --build-dir "$BUILD" run "$LAB/$v" --solutions --no-build > "$OUT/run-$v.log" 2>&1
  rc=$?
  log "solution $v: rc=$rc $(grep -oE "\b(INCORRECT|CORRECT)\b" "$OUT/run-$v.log" | head -1)"
done
timeout 60 "$R" --build-dir "$BUILD" run "$LAB/$V" --no-build > "$OUT/skeleton-$V.log" 2>&1
rc=$?
log "skeleton $V: rc=$rc $([[ $rc == 1 ]] && echo 'INCORRECT, as it should be' || echo 'UNEXPECTED: want 1')"
tol="--atol 1e-2 --rtol 1e-2 --max-rel-l2 6e-3"
for spec in "${SANITIZE[@]}"; do
  set -- $spec
  timeout 60 compute-sanitizer --tool "$1" --error-exitcode 99 "$BUILD/labs/solution-$LAB" --variant "$2" \
    --mode verify --verify-shape "$3" --seed 7 $tol --result - > "$OUT/sanitizer-$1-$2.log" 2>&1
  log "$1 $2 $3: rc=$? $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitizer-$1-$2.log" | tail -1)"
done

# 2. The candidates: correctness first, then the table (TFLOP/s, % of cuDNN), registers and spills.
CUDNN_INC=$(sed -n 's/^ROOFLINE_CUDNN_INCLUDE_DIR:PATH=//p' "$BUILD/CMakeCache.txt")
CUDNN_LIB=$(sed -n 's/^ROOFLINE_CUDNN_LIBRARY:FILEPATH=//p' "$BUILD/CMakeCache.txt")
step probe-compile nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -Igrader/include -Ilabs/08-attention \
  -Igrader/problems/attention ${CUDNN_INC:+-I"$CUDNN_INC"} -o "$OUT/$PROBE" scripts/probes/$PROBE.cu \
  grader/problems/attention/cudnn_sdpa.cpp ${CUDNN_LIB:-"-lcudnn"} ${CUDNN_LIB:+-Xlinker -rpath=$(dirname "$CUDNN_LIB")}
grep -cE "[1-9][0-9]* bytes spill" "$OUT/probe-compile.log" | sed 's/^/  kernels with spills: /' >> "$summary"
if [[ -x "$OUT/$PROBE" ]]; then
  step probe timeout $PROBE_S "$OUT/$PROBE" 20
  grep -E "FAILED|WRONG|refused|error" "$OUT/probe.log" | head -4 >> "$summary"
  grep -E "^\| |all candidates|SOME CANDIDATE" "$OUT/probe.log" | cut -c1-120 >> "$summary"
  rm -f "$OUT/$PROBE"
fi

# 3. The solution graded beside cuDNN, one variant at a time, while the time budget lasts.
for v in $GRADED; do
  if (( $(date +%s) - START > BUDGET_S )); then log "grade $v: skipped (time budget)"; continue; fi
  timeout 40 "$R" --build-dir "$BUILD" grade "$LAB/$v" --solutions --no-build > "$OUT/grade-$v.log" 2>&1
  rc=$?
  log "grade $v: rc=$rc $(grep -oE "\b(INCORRECT|CORRECT)\b" "$OUT/grade-$v.log" | head -1)" \
    "$(grep -E "^  (time|rate|SM clock)" "$OUT/grade-$v.log" | head -3 | sed 's/ median (.*//; s/^  *//' | paste -sd' ' | cut -c1-150)"
done
mkdir -p "$OUT/results" && cp .roofline/results/$LAB/solutions/$V*.json "$OUT/results/" 2>/dev/null
log "== done in $(( $(date +%s) - START )) s $(date -u +%FT%TZ)"
