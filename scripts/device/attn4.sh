#!/usr/bin/env bash
# Lab 07 rung 4 (the FlashAttention-3 style kernel) on an H100/H200, for the lead's batched run:
#   bash scripts/device/attn4.sh BUILD_DIR OUT_DIR
# Steps, each logged under OUT_DIR, none stopping the others; OUT_DIR/summary.txt gets one
# line per step and the probe's table (at most 40 lines):
#   1. build roofline and both lab 07 programs;
#   2. correctness: `roofline run --solutions` of the four rung-4 variants on the lab's
#      verify shapes (seq 1, 17, 64, 1000, 2113; head_dim 64 and 128; causal masked), the
#      skeleton still INCORRECT, compute-sanitizer memcheck at odd lengths (plain, causal);
#   3. the schedules probe (scripts/probes/attn4_variants.cu, compiled here with nvcc, cuDNN's
#      paths from the build's CMake cache): every schedule verified on odd shapes, one process
#      each (a deadlock costs one row), then the correct ones timed beside cuDNN at 4k and
#      16k, plain and causal, and 1k (16 x 16 heads x 1024); its table;
#   4. `roofline grade 07-attention/warp_specialized* --solutions`: the schedule the solution
#      file launches (`Chosen`), graded beside cuDNN in the same run.
# About 3 minutes on an H200 once built (the probe's compile ~1 min, its run ~30 s).
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
LAB=07-attention
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

log "== attn4 (lab 07 rung 4) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>&1)"
step build cmake --build "$BUILD" --target roofline "lab-$LAB" "solution-$LAB"

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
            "warp_specialized batch=2,heads=1,seq=17,head_dim=64" \
            "warp_specialized batch=1,heads=3,seq=1000,head_dim=128"; do
  set -- $spec
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 99 "$BUILD/labs/solution-$LAB" --variant "$1" \
    --mode verify --verify-shape "$2" --seed 7 $tol --result "$OUT/sanitizer-$1-$2.json" > "$OUT/sanitizer-$1-$2.log" 2>&1
  log "memcheck $1 $2: rc=$? $(grep -E "ERROR SUMMARY" "$OUT/sanitizer-$1-$2.log" | tail -1)"
done

# 3. The schedules: correctness first, then the table (ms, TFLOP/s, % of cuDNN).
cudnn_include=$(sed -n 's/^ROOFLINE_CUDNN_INCLUDE_DIR:PATH=//p' "$BUILD/CMakeCache.txt")
cudnn_library=$(sed -n 's/^ROOFLINE_CUDNN_LIBRARY:FILEPATH=//p' "$BUILD/CMakeCache.txt")
[[ ${SKIP_PROBE:-0} == 1 ]] || step probe-compile nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Igrader/include -Igrader/problems \
  ${cudnn_include:+-I"$cudnn_include"} -o "$OUT/attn4_variants" scripts/probes/attn4_variants.cu \
  grader/problems/attention/cudnn_sdpa.cpp grader/harness/tma.cu ${cudnn_library:-"-lcudnn"} \
  ${cudnn_library:+-Xlinker -rpath -Xlinker "$(dirname "$cudnn_library")"}
if [[ ${SKIP_PROBE:-0} != 1 && -x "$OUT/attn4_variants" ]]; then
  # One process per schedule for the checks, so that a schedule that deadlocks (the probe
  # stops at a launch still running after 20 s) costs only its own row.
  passed=()
  verdicts=()
  for name in today persistent overlap overlap+pp overlap+pp+s3 ov+persist ov+pp+persist all+s3 Chosen; do
    timeout 180 "$OUT/attn4_variants" 0 "$name" > "$OUT/probe-verify-$name.log" 2>&1
    rc=$?
    if [[ $rc == 0 ]]; then passed+=("$name"); verdicts+=("$name ok")
    else
      verdicts+=("$name rc=$rc")
      grep -m1 -E "WRONG:|HANG|CUDA error" "$OUT/probe-verify-$name.log" | cut -c1-160 | sed 's/^/  /' >> "$summary"
    fi
  done
  log "  verify (odd shapes, head_dim 64/128, causal; one process each): ${verdicts[*]}"
  if (( ${#passed[@]} > 0 )); then
    step probe timeout 300 "$OUT/attn4_variants" 30 "${passed[@]}"
    grep -E "WRONG:|CUDA error|refused" "$OUT/probe.log" | head -2 | cut -c1-200 >> "$summary"
    grep -E "^median|^contender|^[a-zA-Z0-9+]+ +\| " "$OUT/probe.log" | cut -c1-200 >> "$summary"
  fi
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
