#!/usr/bin/env bash
# One batched run on the GPU machine: build, GPU tests, ceilings, and the lab
# gradings whose numbers the READMEs and lessons quote. Writes under $OUT
# (at most 8 files come back). Usage on the device: bash scripts/device_session.sh [labs...]
# SKIP_CEILINGS=1 and SKIP_TORCH=1 leave out `roofline ceilings` and the PyTorch cross-check.
set -uo pipefail
OUT=${OUT:-/tmp/roofline-out}
mkdir -p "$OUT"
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
summary="$OUT/summary.txt"
log() { echo "$@" | tee -a "$summary"; }

log "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader)"
start=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > "$OUT/build.log" 2>&1 &&
  cmake --build build --parallel "$(nproc)" >> "$OUT/build.log" 2>&1
log "build: rc=$? in $(( $(date +%s) - start )) s"
tail -5 "$OUT/build.log" | tee -a "$summary"
R=build/roofline

log "== GPU tests"
(cd build && ctest -L gpu --output-on-failure) > "$OUT/gpu-tests.txt" 2>&1
log "gpu tests rc=$?"; tail -4 "$OUT/gpu-tests.txt" | tee -a "$summary"

if [[ "${SKIP_CEILINGS:-0}" != 1 ]]; then
  log "== ceilings"
  $R ceilings 2>&1 | tee -a "$summary"
  $R ceilings --json > "$OUT/ceilings.json" 2>/dev/null
fi

if [[ -n "${PREDICTIONS:-}" ]]; then
  log "== instructor predictions ($PREDICTIONS)"
  bash "$PREDICTIONS" "$R" 2>&1 | tee -a "$summary"
fi

for lab in "$@"; do
  log "== grade $lab --all --solutions"
  s=$(date +%s)
  $R grade "$lab" --all --solutions --no-build > "$OUT/grade-$lab.txt" 2>&1
  grep -A30 "^variant " "$OUT/grade-$lab.txt" | tee -a "$summary"
  log "($(( $(date +%s) - s )) s)"
done
tar czf "$OUT/results.tgz" .roofline 2>/dev/null

if [[ -n "${REPEAT_TARGET:-}" ]]; then
  log "== repeatability: $REPEAT_TARGET graded 5 times (wall time excludes compilation)"
  for i in 1 2 3 4 5; do
    s=$(date +%s.%N)
    $R grade "$REPEAT_TARGET" --solutions --no-build --json > /tmp/rep.json 2>&1
    e=$(date +%s.%N)
    python3 -c "import json;d=json.load(open('/tmp/rep.json'));print(f\"run $i: median {d['time_s']['median']*1e6:.2f} us, {d['achieved']:.4g} {d['unit']}, {100*d['fraction_of_peer']:.1f}% of peer, clock {d['sm_clock_mhz']['median']:.0f} MHz, wall $(python3 -c "print(f'{$e-$s:.2f}')") s\")" | tee -a "$summary"
  done
fi

[[ "${SKIP_TORCH:-0}" == 1 ]] && { log "== total $(( $(date +%s) - start )) s"; exit 0; }
log "== cross-check with PyTorch (cuBLAS alone, copy alone)"
python3 - <<'PY' 2>&1 | tee -a "$summary"
import torch
def bench(fn, n=20):
    for _ in range(3): fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(n):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); b.synchronize(); ts.append(a.elapsed_time(b) / 1e3)
    ts.sort(); return ts[len(ts) // 2]
for n in (4096, 8192):
    x = torch.rand(n, n, device="cuda", dtype=torch.bfloat16) * 2 - 1
    y = torch.rand(n, n, device="cuda", dtype=torch.bfloat16) * 2 - 1
    t = bench(lambda: x @ y)
    print(f"torch bf16 matmul {n}: {2*n**3/t/1e12:.1f} TFLOP/s")
src = torch.empty(1 << 28, device="cuda", dtype=torch.float32); dst = torch.empty_like(src)
t = bench(lambda: dst.copy_(src))
print(f"torch copy 1 GiB: {2*(1<<30)/t/1e12:.3f} TB/s")
PY
log "== total $(( $(date +%s) - start )) s"
