#!/usr/bin/env bash
# Lab 03 rung 9 (mma.sync + cp.async pipelined bf16 GEMM) on a GPU, for the lead's batched run:
#   bash scripts/device/rung9.sh BUILD_DIR OUT_DIR
# BUILD_DIR must hold a configured build; the targets below are built if missing (not counted).
# Steps, each logged under OUT_DIR, none stopping the others; OUT_DIR/summary.txt gets one line
# per step and the probe's table (at most 40 lines):
#   1. the skeleton: `roofline run` must say INCORRECT (exit 1), never correct, never a crash;
#   2. the solution: `roofline run --solutions` CORRECT on the lab's verify shapes;
#   3. the candidates probe (scripts/probes/rung9_variants.cu, compiled here with nvcc): the
#      solution's forms (copies over three k16 steps or at the first), the producer-warpgroup
#      kernel (scripts/probes/rung9_ws.cuh), and two timing-only forms without copies (and without the barrier) that split the
#      kernel's time; the correct ones checked against cuBLAS first (odd shapes, more C tiles than
#      SMs), then all timed beside cuBLAS and the mma.sync roof (at 8, 16 and 32 warps an SM),
#      interleaved, L2 flushed, medians; its table; the probe's SASS (cuobjdump) in
#      OUT/rung9.sass.gz;
#   4. `roofline grade 03-gemm/r9_pipelined --solutions`: its fraction of cuBLAS (scored) and of
#      the mma.sync roof (the goal: >= 80%; the roof from the `roofline ceilings` the lead runs
#      in the same device call, or the last saved one);
#   5. compute-sanitizer over the solution on small odd shapes (N and M % 256 == 128, K % 64 ==
#      32, a single K tile): memcheck (the K tail's copies read only valid addresses), then
#      racecheck (the cp.async ring, a tile's copies issued at the first k16 step two tiles
#      ahead) on one shape.
# ~1.5-2 min on an H200 once built (the probe's compile ~15 s and run ~20 s, the grade ~20 s,
# the sanitizers at most 45 s each).
set -u
BUILD=${1:?usage: rung9.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: rung9.sh BUILD_DIR OUT_DIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BUILD=$(cd "$BUILD" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
R="$BUILD/roofline"
FLAGS="--root $ROOT --build-dir $BUILD"
LAB=03-gemm
V=r9_pipelined
LOG="$OUT/predictions.yaml"   # the grading's log: never the course's
summary="$OUT/summary.txt"
: > "$summary"
log() { echo "$@" | tee -a "$summary"; }
verdict() { grep -m1 -oE "(INCORRECT|CORRECT|FAILED|REFUSED)[^.]*" "$1" | cut -c1-110; }
step() {  # step NAME COMMAND...: runs it with its output in OUT/NAME.log, logs rc and seconds
  local name=$1; shift
  local s=$(date +%s)
  "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  log "$name: rc=$rc in $(( $(date +%s) - s )) s"
  return 0
}

log "== rung9 (lab 03 rung 9) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1)"
step build cmake --build "$BUILD" --target roofline lab-$LAB solution-$LAB

# 1-2. Skeleton INCORRECT (exit 1); solution CORRECT on the lab's verify shapes.
timeout 120 "$R" $FLAGS run "$LAB/$V" --no-build > "$OUT/1-skeleton.log" 2>&1
rc=$?
log "1. skeleton run: rc=$rc $([[ $rc == 1 ]] && echo 'as it should be (1)' || echo 'UNEXPECTED: want 1') $(verdict "$OUT/1-skeleton.log")"
timeout 120 "$R" $FLAGS run "$LAB/$V" --solutions --no-build > "$OUT/2-solution.log" 2>&1
log "2. solution run: rc=$? (want 0) $(verdict "$OUT/2-solution.log")"

# 3. The candidates: correctness first, then the table (us, TFLOP/s, % of cuBLAS, % of the mma.sync roof).
step 3-probe-compile nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Igrader/include -Xptxas -v \
  -o "$OUT/rung9_variants" scripts/probes/rung9_variants.cu grader/harness/tma.cu -lcublas
if [[ -x "$OUT/rung9_variants" ]]; then
  cuobjdump -sass "$OUT/rung9_variants" 2>&1 | gzip > "$OUT/rung9.sass.gz"
  step 3-probe timeout 90 "$OUT/rung9_variants" 60
  grep -E "^verify" "$OUT/3-probe.log" | grep -v "correct on all shapes" | head -3 | tee -a "$summary"
  grep -E "WRONG" "$OUT/3-probe.log" | head -2 | tee -a "$summary"
  grep -E "spills|blocks/SM" "$OUT/3-probe.log" | awk '$0 !~ / 0 bytes local/' | head -2 | tee -a "$summary"
  grep -E "^mma.sync roof|^the roof kernel|^candidate|^.{24} \| " "$OUT/3-probe.log" | cut -c1-100 | tee -a "$summary"
  rm -f "$OUT/rung9_variants"
fi

# 4. The solution graded beside cuBLAS, its fraction of the mma.sync roof in the report.
timeout 180 "$R" $FLAGS grade "$LAB/$V" --solutions --no-build --log "$LOG" > "$OUT/4-grade.log" 2>&1
log "4. grade $LAB/$V --solutions: rc=$? $(verdict "$OUT/4-grade.log")"
grep -E "^  (time|rate) |mma.sync roof|clock" "$OUT/4-grade.log" | head -6 | sed 's/^ */   /' | cut -c1-140 \
  | tee -a "$summary"

# 5. Out-of-bounds accesses and shared-memory races of the solution, on small shapes only, last and
#    under tight limits (the timings above matter more to the lead's short device time).
TOL="--atol 0.01 --rtol 0.008 --max-rel-l2 0.004"
step 5-memcheck timeout 45 compute-sanitizer --tool memcheck --error-exitcode 9 "$BUILD/labs/solution-$LAB" \
  --variant $V --mode verify $TOL --verify-shape m=128,n=128,k=32 --verify-shape m=384,n=640,k=96 \
  --verify-shape m=640,n=128,k=160 --verify-shape m=256,n=384,k=1056 --result -
grep -m1 -E "ERROR SUMMARY" "$OUT/5-memcheck.log" | sed 's/^/   /' | tee -a "$summary"
step 5-racecheck timeout 45 compute-sanitizer --tool racecheck --error-exitcode 9 "$BUILD/labs/solution-$LAB" \
  --variant $V --mode verify $TOL --verify-shape m=384,n=640,k=160 --result -
grep -m1 -E "RACECHECK SUMMARY|ERROR SUMMARY" "$OUT/5-racecheck.log" | sed 's/^/   /' | tee -a "$summary"

log "== done $(date -u +%FT%TZ)"
