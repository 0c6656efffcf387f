#!/usr/bin/env bash
# Lab 09 (decode) and `roofline timeline` on a GPU: the skeletons must be
# incorrect, the given layer (rung 5) and the solutions correct (odd shapes
# included), then every solution graded beside its peer measured in the same run
# (cudaMemcpy on W's bytes, with cuBLAS's bf16 GEMV as the `also` line; cuBLAS for
# the skinny GEMM; cudaMemcpy on the layer's bytes for rungs 5-7), compute-sanitizer
# over the layer kernels' odd shapes, the timelines of lab 00's overhead rungs and
# of the layer rungs, and a PyTorch cross-check of cuBLAS.
# DECODE_FULL=1 also runs compute-sanitizer over rungs 1-4 (clean on 2026-11-30; their
# kernels have not changed since) and a GEMV's timeline.
# Usage: bash scripts/device/decode.sh BUILD_DIR OUT_DIR     (~2.5 minutes on an H200)
# One failing step never stops the others; each writes a log under OUT_DIR, and
# OUT_DIR/summary.txt gets one line per step.
set -u
BUILD=${1:?usage: decode.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: decode.sh BUILD_DIR OUT_DIR}
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
LAB=09-decode
VARIANTS=$(sed -n 's/^  - {name: \([a-z0-9_x]*\),.*/\1/p' labs/$LAB/lab.yaml)

log "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>&1)"
step build cmake --build "$BUILD" --target roofline lab-$LAB solution-$LAB lab-00-three-regimes solution-00-three-regimes

# Skeletons: each must be INCORRECT (exit 1), never correct, never a crash; the given
# layer (rung 5, decode_launches_*) must be CORRECT (exit 0) as it is.
for v in $VARIANTS; do
  want=1; [[ $v == decode_launches_* ]] && want=0
  "$R" --build-dir "$BUILD" run "$LAB/$v" --no-build > "$OUT/skeleton-$v.log" 2>&1
  rc=$?
  log "skeleton $v: rc=$rc $([[ $rc == "$want" ]] && echo 'as it should be' || echo "UNEXPECTED: want $want")"
done

# Solutions: verify on every verify shape (odd K, N = 1, 17, M up to 20; layers of one head,
# one cached position, ffn 300) and the timed one. The given layer was run above.
for v in $VARIANTS; do
  [[ $v == decode_launches_* ]] && continue
  "$R" --build-dir "$BUILD" run "$LAB/$v" --solutions --no-build > "$OUT/solution-run-$v.log" 2>&1
  rc=$?
  log "solution run $v: rc=$rc $([[ $rc == 0 ]] && echo correct || echo 'UNEXPECTED: want 0')"
done

# Graded beside the peers, one lab program for all (the ladder is at the end of the log).
step grade-solutions "$R" --build-dir "$BUILD" grade "$LAB" --all --solutions --no-build
tail -26 "$OUT/grade-solutions.log" >> "$summary"
grep -E "^09-decode/|  also  " "$OUT/grade-solutions.log" | grep -B1 "  also  " >> "$summary"
mkdir -p "$OUT/results" && cp .roofline/results/$LAB/solutions/*.json "$OUT/results/" 2>/dev/null

# Out-of-bounds reads and writes on the odd shapes, one job per op.
P="$BUILD/labs/solution-$LAB"
sanitize() {  # sanitize VARIANT SHAPES...
  local v=$1; shift
  local args=()
  for s in "$@"; do args+=(--verify-shape "$s"); done
  step "sanitizer-$v" compute-sanitizer --tool memcheck --error-exitcode 9 "$P" --variant "$v" --mode verify \
    --atol 0.01 --rtol 0.008 --max-rel-l2 0.004 "${args[@]}" --result -
}
sanitize decode_launches_h512 cache=1,ffn=1,heads=1,hidden=128 cache=17,ffn=300,heads=2,hidden=256
sanitize decode_fused_h512 cache=1,ffn=1,heads=1,hidden=128 cache=17,ffn=300,heads=2,hidden=256
if [[ ${DECODE_FULL:-0} == 1 ]]; then
  sanitize gemv_bf16_8192 n=1,k=4096 n=17,k=4099 n=17,k=1000 n=300,k=1024
  sanitize skinny_m4 m=1,n=17,k=4099 m=9,n=33,k=520 m=20,n=100,k=2048
  sanitize gemv_int8_8192 n=1,k=4096 n=17,k=4099 n=17,k=1000 n=33,k=2048
  sanitize gemv_fp8_8192 n=1,k=4096 n=17,k=4099 n=17,k=1000 n=33,k=2048
fi

# Timelines: lab 00's overhead rungs (launches: gaps > 50% of the step; graph: smaller;
# fused: one kernel) and a GEMV; the SVGs and the raw CUPTI records come back.
for v in overhead_launches overhead_graph overhead_fused; do
  step "timeline-$v" "$R" --build-dir "$BUILD" timeline "00-three-regimes/$v" --solutions --no-build \
    --svg "$OUT/timeline-$v.svg" --trace "$OUT/trace-$v.json"
  grep -E "kernels; step" "$OUT/timeline-$v.log" | sed "s/^/  $v: /" >> "$summary"
done
# The decoder layer: the three rungs at hidden 512 (launches, graph, fused) and the given one
# at 4096; the SVGs are the lesson's pictures of the host gap.
for v in decode_launches_h512 decode_graph_h512 decode_fused_h512 decode_launches_h4096; do
  step "timeline-$v" "$R" --build-dir "$BUILD" timeline "$LAB/$v" --solutions --no-build \
    --svg "$OUT/timeline-$v.svg" --trace "$OUT/trace-$v.json"
  grep -E "kernels; step" "$OUT/timeline-$v.log" | sed "s/^/  $v: /" >> "$summary"
done
if [[ ${DECODE_FULL:-0} == 1 ]]; then
  step timeline-gemv "$R" --build-dir "$BUILD" timeline "$LAB/gemv_bf16_8192" --solutions --no-build \
    --svg "$OUT/timeline-gemv_bf16_8192.svg" --trace "$OUT/trace-gemv_bf16_8192.json"
  grep -E "kernels; step" "$OUT/timeline-gemv.log" | sed "s/^/  gemv_bf16_8192: /" >> "$summary"
fi

# PyTorch's F.linear (cuBLAS or cuBLASLt, as torch picks) at M = 1..16, N = K = 8192, bf16,
# against the bytes of W: a second opinion on the peer column.
cat > "$OUT/torch_linear.py" <<'PY'
import torch, torch.nn.functional as F
torch.manual_seed(0)
N = K = 8192
W = torch.rand(N, K, device="cuda", dtype=torch.bfloat16) * 2 - 1
flush = torch.empty(512 << 20, dtype=torch.uint8, device="cuda")
for M in (1, 2, 4, 8, 16):
    X = torch.rand(M, K, device="cuda", dtype=torch.bfloat16) * 2 - 1
    ref = (X.double() @ W.double().T)
    err = ((F.linear(X, W).double() - ref).norm() / ref.norm()).item()
    times = []
    for _ in range(50):
        flush.zero_()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); F.linear(X, W); b.record(); b.synchronize()
        times.append(a.elapsed_time(b) * 1e3)
    t = sorted(times)[len(times) // 2]
    print(f"torch F.linear M={M:2d}: median {t:7.2f} us, {2 * N * K / t / 1e6:6.3f} TB/s on W, rel_l2 {err:.1e}")
PY
step torch-linear python3 "$OUT/torch_linear.py"
cat "$OUT/torch-linear.log" >> "$summary"
log "== done $(date -u +%FT%TZ)"
