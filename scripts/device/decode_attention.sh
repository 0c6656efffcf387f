#!/usr/bin/env bash
# Lab 10 (production): decode attention over the KV cache on a GPU. Builds only the lab's two
# programs and the CLI; the skeleton must be INCORRECT on every variant (exit 1, never a crash);
# the solution CORRECT on the verify shapes (batch 1, 3, 17, 64; contexts 1 to 33,000, ragged)
# and its timed ones; compute-sanitizer's memcheck over the solution on three odd shapes; the
# kernels' registers and shared memory; five gradings of the whole lab (every timed variant
# beside cudaMemcpy moving the same bytes, in the same run); PyTorch's SDPA (enable_gqa) on the
# same shapes where torch imports (a cross-check only).
# Usage: bash scripts/device/decode_attention.sh BUILD_DIR OUT_DIR   (~2-3 minutes after the build)
# One failing step never stops the others; each writes a log under OUT_DIR, and
# OUT_DIR/summary.txt gets one line per step.
set -u
BUILD=${1:?usage: decode_attention.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: decode_attention.sh BUILD_DIR OUT_DIR}
mkdir -p "$OUT"
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
R="$BUILD/roofline"
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
LAB=10-production
VARIANTS=$(sed -n 's/^  - {name: \([a-z0-9_]*\),.*/\1/p' labs/$LAB/lab.yaml)

log "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>&1)"
step build cmake --build "$BUILD" --target roofline lab-$LAB solution-$LAB

# Registers, spills and shared memory of every kernel in the solution program (the split plan
# asks the runtime how many blocks of the kernel an SM holds; the knobs' sweep is
# decode_attention_sweep.sh).
cuobjdump --dump-resource-usage "$BUILD/labs/solution-$LAB" > "$OUT/resource-usage-all.txt" 2>&1
grep -A1 -E "attend_kernel" "$OUT/resource-usage-all.txt" > "$OUT/resource-usage.txt"
sed 's/^/  /' "$OUT/resource-usage.txt" >> "$summary"

for v in $VARIANTS; do
  "$R" --build-dir "$BUILD" run "$LAB/$v" --no-build > "$OUT/skeleton-$v.log" 2>&1
  rc=$?
  log "skeleton $v: rc=$rc $([[ $rc == 1 ]] && echo 'as it should be (INCORRECT)' || echo 'UNEXPECTED: want 1')"
done
for v in $VARIANTS; do
  "$R" --build-dir "$BUILD" run "$LAB/$v" --solutions --no-build > "$OUT/solution-run-$v.log" 2>&1
  rc=$?
  log "solution run $v: rc=$rc $([[ $rc == 0 ]] && echo correct || echo 'UNEXPECTED: want 0')"
done

# Out-of-bounds reads and writes, and reads of uninitialized memory, on small odd shapes.
P="$BUILD/labs/solution-$LAB"
step sanitizer-memcheck compute-sanitizer --tool memcheck --error-exitcode 9 "$P" --variant decode_attention_b1_4k \
  --mode verify --atol 0.001 --rtol 0.008 --max-rel-l2 0.004 --verify-shape batch=1,context=1,shortest=1 \
  --verify-shape batch=3,context=127,shortest=1 --verify-shape batch=17,context=4097,shortest=1 --result -
step sanitizer-racecheck compute-sanitizer --tool racecheck --error-exitcode 9 "$P" --variant decode_attention_b1_4k \
  --mode verify --atol 0.001 --rtol 0.008 --max-rel-l2 0.004 --verify-shape batch=3,context=127,shortest=1 --result -

# Five gradings of every variant beside its peer (one lab program per grading, all variants).
mkdir -p "$OUT/results"
for i in 1 2 3 4 5; do
  step "grade-solutions-$i" "$R" --build-dir "$BUILD" grade "$LAB" --all --solutions --no-build
  grep -E "^$LAB/|time |peer " "$OUT/grade-solutions-$i.log" > "$OUT/grade-solutions-$i.short.txt"
  mkdir -p "$OUT/results/$i" && cp .roofline/results/$LAB/solutions/*.json "$OUT/results/$i/" 2>/dev/null
done
tail -12 "$OUT/grade-solutions-1.log" >> "$summary"

# PyTorch's SDPA on the same shapes: the issue's anchor (10% of the copy at batch 1 / 4k).
if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  step torch-sdpa python3 scripts/device/decode_attention_torch.py
  cat "$OUT/torch-sdpa.log" >> "$summary"
else
  log "torch-sdpa: torch with CUDA not importable here; no anchor"
fi
log "== done $(date -u +%FT%TZ)"
