#!/usr/bin/env bash
# Lab 05 on the GPU machine, for the lead's batched run:
#   bash scripts/device/layouts.sh BUILD_DIR OUT_DIR
# BUILD_DIR must hold a configured build (roofline and the lab 05 programs are built here
# if missing). Steps, each logged to OUT_DIR/<step>.txt, none stopping the others:
#   1. the CPU parts of the solution and the skeleton (expected: 7 correct; 7 "threw");
#   2. `roofline run` (verify only) of every transpose rung, solutions and skeletons
#      (expected: solutions correct; skeletons INCORRECT: outputs never written);
#   3. `roofline grade --all --solutions` of the lab: each rung timed beside cudaMemcpy
#      of the same bytes in the same run;
#   4. ncu's shared-memory bank conflicts per rung (fp32), where ncu exists;
#   5. a PyTorch cross-check: x.t().contiguous() against a copy, in the same process.
# OUT_DIR/summary.txt holds one line per step and the grade table. Meant to take
# under 3 minutes on an H200 once built.
set -u
BUILD=${1:?usage: layouts.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: layouts.sh BUILD_DIR OUT_DIR}
mkdir -p "$OUT"
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BUILD=$(cd "$BUILD" && pwd)
R="$BUILD/roofline"
FLAGS="--root $ROOT --build-dir $BUILD"
summary="$OUT/summary.txt"
: > "$summary"
log() { echo "$@" | tee -a "$summary"; }
export PATH=/usr/local/cuda/bin:$PATH
start=$(date +%s)

log "== lab 05 (layouts) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
cmake --build "$BUILD" --target roofline lab-05-layouts solution-05-layouts lab-05-layouts-cpu solution-05-layouts-cpu \
  > "$OUT/build.txt" 2>&1
log "build: rc=$?"

parts="evaluate coalesce compose complement logical_divide swizzle wavefronts"
rungs="naive padded swizzled tma"

log "== 1. CPU parts"
for which in --solutions ""; do
  for p in $parts; do
    $R $FLAGS grade "05-layouts/$p" $which --no-build >> "$OUT/cpu-parts.txt" 2>&1
    log "  ${which:-labs} $p: rc=$?"
  done
done

log "== 2. verify every rung (roofline run)"
for which in --solutions ""; do
  for r in $rungs; do
    for dt in fp32 bf16; do
      v="transpose_${r}_${dt}"
      timeout 120 $R $FLAGS run "05-layouts/$v" $which --no-build >> "$OUT/verify.txt" 2>&1
      log "  ${which:-labs} $v: rc=$? $(grep -m1 -o "$v  [A-Z]*" "$OUT/verify.txt" | tail -1)"
    done
  done
done

log "== 3. grade --all --solutions (each rung beside cudaMemcpy, same run)"
timeout 300 $R $FLAGS grade 05-layouts --all --solutions --no-build > "$OUT/grade.txt" 2>&1
log "  rc=$?"
grep -A20 "^variant " "$OUT/grade.txt" | tee -a "$summary"

log "== 4. ncu: shared-memory bank conflicts (fp32 rungs)"
if command -v ncu > /dev/null; then
  for r in $rungs; do
    v="transpose_${r}_fp32"
    timeout 120 ncu --kernel-name "regex:transpose_" --launch-count 1 \
      --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum \
      "$BUILD/labs/solution-05-layouts" --variant "$v" --mode verify --verify-shape rows=4096,cols=4096 \
      --atol 0 --rtol 0 --max-rel-l2 1e-12 --result "$OUT/ncu-$v.json" > "$OUT/ncu-$v.txt" 2>&1
    log "  $v: rc=$? $(grep -E "bank_conflicts|wavefronts|inst_executed" "$OUT/ncu-$v.txt" | awk '{print $1 "=" $NF}' | tr '\n' ' ')"
  done
else
  log "  ncu not found: skipped"
fi

log "== 5. PyTorch cross-check (transpose vs copy, same process)"
timeout 120 python3 - > "$OUT/torch.txt" 2>&1 <<'PY'
import torch
def bench(fn, n=30):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(3): fn()
    torch.cuda.synchronize(); s.record()
    for _ in range(n): fn()
    e.record(); torch.cuda.synchronize()
    return s.elapsed_time(e) / n * 1e-3
for dtype in (torch.float32, torch.bfloat16):
    x = torch.randn(16384, 16384, device="cuda").to(dtype)
    y = torch.empty_like(x)
    nbytes = 2 * x.numel() * x.element_size()
    t_copy = bench(lambda: y.copy_(x))
    t_tr = bench(lambda: y.copy_(x.t()))
    print(f"{dtype}: copy {nbytes / t_copy / 1e12:.3f} TB/s, transpose {nbytes / t_tr / 1e12:.3f} TB/s "
          f"({100 * t_copy / t_tr:.1f}% of the copy; warm L2, no flush)")
PY
log "  rc=$?"; tee -a "$summary" < "$OUT/torch.txt"

log "== total $(( $(date +%s) - start )) s"
exit 0
