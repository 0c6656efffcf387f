#!/usr/bin/env bash
# Lab 08 rung 4 (the FlashAttention-3 style kernel) on an H100/H200, for the lead's batched run:
#   bash scripts/device/attn4.sh BUILD_DIR OUT_DIR
# Steps, each logged under OUT_DIR, none stopping the others; OUT_DIR/summary.txt gets one
# line per step and the probe's table (at most 40 lines):
#   1. build roofline and both lab 08 programs;
#   2. correctness: `roofline run --solutions` of the four rung-4 variants on the lab's
#      verify shapes (seq 1, 17, 64, 1000, 2113; head_dim 64 and 128; causal masked), the
#      skeleton still INCORRECT, compute-sanitizer memcheck at odd lengths (plain, causal);
#   3. the schedules probe (scripts/probes/attn4_variants.cu, compiled with nvcc in the
#      background from the start, cuDNN's paths from the build's CMake cache): every schedule
#      verified on odd shapes, then the correct ones timed beside cuDNN at 4k and 16k, plain
#      and causal, and 1k (16 x 16 heads x 1024); its table. One process for all: a schedule
#      that hangs (the probe stops with rc 4 and names it) is dropped and the rest run again,
#      at most twice;
#   4. `roofline grade 08-attention/warp_specialized* --solutions`: the schedule the solution
#      file launches (`Chosen`), graded beside cuDNN in the same run.
# Under 150 s on an H200 once built (the probe's compile runs beside step 2).
# SKIP_PROBE=1 leaves out step 3 (to grade the file's schedule again after a switch).
set -u
BUILD=${1:?usage: attn4.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: attn4.sh BUILD_DIR OUT_DIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
BUILD=$(cd "$BUILD" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
R="$BUILD/roofline"
LAB=08-attention
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

log "== attn4 (lab 08 rung 4) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>&1)"
step build cmake --build "$BUILD" --target roofline "lab-$LAB" "solution-$LAB"

# The probe's compile (CPU only) runs while steps 2 use the GPU.
cudnn_include=$(sed -n 's/^ROOFLINE_CUDNN_INCLUDE_DIR:PATH=//p' "$BUILD/CMakeCache.txt")
cudnn_library=$(sed -n 's/^ROOFLINE_CUDNN_LIBRARY:FILEPATH=//p' "$BUILD/CMakeCache.txt")
compile_started=$(date +%s)
if [[ ${SKIP_PROBE:-0} != 1 ]]; then
  nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -Igrader/include -Ilabs/08-attention -Igrader/problems \
    ${cudnn_include:+-I"$cudnn_include"} -o "$OUT/attn4_variants" scripts/probes/attn4_variants.cu \
    grader/problems/attention/cudnn_sdpa.cpp grader/harness/tma.cu ${cudnn_library:-"-lcudnn"} \
    ${cudnn_library:+-Xlinker -rpath -Xlinker "$(dirname "$cudnn_library")"} > "$OUT/probe-compile.log" 2>&1 &
  compile_pid=$!
fi

# 2. Correctness of the solution as it stands (the schedule `Chosen`), then the skeleton.
for v in warp_specialized warp_specialized_causal warp_specialized_16k warp_specialized_causal_16k; do
  timeout 150 "$R" --build-dir "$BUILD" run "$LAB/$v" --solutions --no-build > "$OUT/run-$v.log" 2>&1
  rc=$?
  log "run --solutions $v: rc=$rc $(grep -oE "\b(INCORRECT|CORRECT)\b" "$OUT/run-$v.log" | head -1)" \
    "$(grep -m1 -iE "failed|mismatch|error" "$OUT/run-$v.log" | cut -c1-100)"
done
timeout 120 "$R" --build-dir "$BUILD" run "$LAB/warp_specialized" --no-build > "$OUT/skeleton.log" 2>&1
rc=$?
log "skeleton warp_specialized: rc=$rc $([[ $rc == 1 ]] && echo 'INCORRECT, as it should be' || echo 'UNEXPECTED: want 1')"
tol="--atol 1e-2 --rtol 1e-2 --max-rel-l2 6e-3"
for spec in "warp_specialized_causal batch=1,heads=2,seq=333,head_dim=128" \
            "warp_specialized batch=2,heads=1,seq=17,head_dim=64"; do
  set -- $spec
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 99 "$BUILD/labs/solution-$LAB" --variant "$1" \
    --mode verify --verify-shape "$2" --seed 7 $tol --result "$OUT/sanitizer-$1-$2.json" > "$OUT/sanitizer-$1-$2.log" 2>&1
  log "memcheck $1 $2: rc=$? $(grep -E "ERROR SUMMARY" "$OUT/sanitizer-$1-$2.log" | tail -1)"
done

# 3. The schedules: correctness first, then the table (ms, TFLOP/s, % of cuDNN).
if [[ ${SKIP_PROBE:-0} != 1 ]]; then
  wait "$compile_pid"
  log "probe-compile: rc=$? $(grep -c "spill stores" "$OUT/probe-compile.log") kernels," \
    "$(grep "spill stores" "$OUT/probe-compile.log" | grep -vc " 0 bytes spill stores") with spills" \
    "(done $(( $(date +%s) - compile_started )) s after its start)"
fi
if [[ ${SKIP_PROBE:-0} != 1 && -x "$OUT/attn4_variants" ]]; then
  names=(persistent hm hm+poly1 hm+poly2 hm+s3 ov+hm ov+pp+hm ov+pp+hm+poly1 ov+pp+hm+s3 hm+st ov+pp+hm+st Chosen)
  for attempt in 1 2 3; do
    started=$(date +%s)
    timeout 120 "$OUT/attn4_variants" 20 "${names[@]}" > "$OUT/probe-$attempt.log" 2>&1
    rc=$?
    log "probe (attempt $attempt, ${#names[@]} schedules): rc=$rc in $(( $(date +%s) - started )) s"
    grep -E "WRONG|HANG|CUDA error|refused" "$OUT/probe-$attempt.log" | head -3 | cut -c1-160 >> "$summary"
    hung=$(sed -n 's/^verify \([^ ]*\) .*HANG.*/\1/p' "$OUT/probe-$attempt.log" | head -1)
    [[ $rc == 4 && -n $hung ]] || break
    kept=()  # drop the schedule that hung, run the rest again
    for n in "${names[@]}"; do [[ $n == "$hung" ]] || kept+=("$n"); done
    names=("${kept[@]}")
  done
  grep -E "^verify .*(correct on all|WRONG somewhere)" "$OUT/probe-$attempt.log" | awk '{print $2": "$3}' | paste -sd' ' \
    | cut -c1-200 | sed 's/^/  verify: /' >> "$summary"
  grep -E "^median|^contender|^[a-zA-Z0-9+]+ +\| " "$OUT/probe-$attempt.log" | cut -c1-200 >> "$summary"
  rm -f "$OUT/attn4_variants"
fi

# 4. The solution file's schedule, graded beside cuDNN.
for v in warp_specialized warp_specialized_16k warp_specialized_causal warp_specialized_causal_16k; do
  timeout 200 "$R" --build-dir "$BUILD" grade "$LAB/$v" --solutions --no-build > "$OUT/grade-$v.log" 2>&1
  rc=$?
  log "grade $v: rc=$rc $(grep -oE "\b(INCORRECT|CORRECT)\b" "$OUT/grade-$v.log" | head -1)" \
    "$(grep -E "^  (time|rate) " "$OUT/grade-$v.log" | head -2 | sed 's/ median (.*//; s/^  *//' | paste -sd' ' | cut -c1-150)"
done
mkdir -p "$OUT/results" && cp .roofline/results/$LAB/solutions/warp_specialized*.json "$OUT/results/" 2>/dev/null
log "== done $(date -u +%FT%TZ)"
