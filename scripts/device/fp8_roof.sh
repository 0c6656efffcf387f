#!/usr/bin/env bash
# The FP8 roof on the H200 (issue 36): builds the roofline CLI and the ceilings probe only, runs
# `roofline ceilings` (the FP8 wgmma probe beside the datasheet's fp8 figure, and everything else it
# measures), then `roofline calc` for fp8 GEMMs on the H200 profile and the same in bf16 (the switch).
# Writes under OUT_DIR: ceilings.txt and ceilings.json (two runs: the table, then --json), the saved
# measured profile (measured-h200-sxm.yaml), calc-*.txt / calc-*.json, and summary.txt.
# Usage: bash scripts/device/fp8_roof.sh BUILD_DIR OUT_DIR   (BUILD_DIR configured from this tree)
# About two minutes of GPU time after the build: two ceilings runs of about a minute each.
set -u
BUILD=${1:?usage: fp8_roof.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: fp8_roof.sh BUILD_DIR OUT_DIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BUILD=$(cd "$BUILD" && pwd)
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
R="$BUILD/roofline"
FLAGS="--root $(pwd) --build-dir $BUILD"
summary="$OUT/summary.txt"
log() { echo "$@" | tee -a "$summary"; }

log "== fp8_roof: $(date -u +%FT%TZ), $(nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader 2>/dev/null)"
start=$(date +%s)
if ! cmake --build "$BUILD" --parallel "$(nproc)" --target roofline roofline-ceilings > "$OUT/build.log" 2>&1; then
  log "build FAILED (tail of $OUT/build.log):"; tail -30 "$OUT/build.log" | tee -a "$summary"; exit 1
fi
log "built roofline and roofline-ceilings in $(( $(date +%s) - start )) s"

# 1. The ceilings, as a student sees them (the table), then everything the probe measured (--json).
#    Each run saves .roofline/ceilings/h200-sxm.yaml; the second is the one kept.
t=$(date +%s)
"$R" $FLAGS ceilings > "$OUT/ceilings.txt" 2> "$OUT/ceilings.log"; rc=$?
log "ceilings (table): exit $rc, $(( $(date +%s) - t )) s"
cat "$OUT/ceilings.txt" | tee -a "$summary"
t=$(date +%s)
"$R" $FLAGS ceilings --json > "$OUT/ceilings.json" 2>> "$OUT/ceilings.log"; rc=$?
log "ceilings (--json): exit $rc, $(( $(date +%s) - t )) s"
python3 - "$OUT/ceilings.json" "hardware/h200-sxm.yaml" <<'PY' | tee -a "$summary"
import json, re, sys
d = json.load(open(sys.argv[1]))
sheet = float(re.search(r"fp8:\s*\{dense:\s*([0-9.]+)", open(sys.argv[2]).read()).group(1))
fp8 = d.get("wgmma_fp8_tflops")
if fp8:
    clock = d.get("wgmma_fp8_sm_clock_mhz", 0)
    # the datasheet's rate is 8192 FP8 FLOP per clock per SM (132 SMs at 1830 MHz = 1978.9 TFLOP/s)
    at_clock = d["sm_count"] * 8192 * clock * 1e6 / 1e12 if clock else 0
    print(f"fp8 wgmma probe: {fp8:.1f} TFLOP/s = {100 * fp8 / sheet:.1f}% of the datasheet's {sheet:g}; "
          f"SM clock {clock:.0f} MHz, where 8192 FLOP/clk/SM gives {at_clock:.1f} ({100 * fp8 / at_clock:.1f}%)"
          if at_clock else f"fp8 wgmma probe: {fp8:.1f} TFLOP/s ({100 * fp8 / sheet:.1f}% of {sheet:g})")
    print("  per configuration:", d.get("wgmma_fp8_styles_tflops"))
    print("  timing:", d.get("timing", {}).get("wgmma_fp8"))
else:
    print("fp8 wgmma probe: NOT measured:", d.get("wgmma_fp8_skipped") or d.get("message") or "no figure")
bf16 = d.get("gemm", {}).get("bf16", {}).get("tflops")
if bf16 and fp8:
    print(f"measured fp8 wgmma / cuBLAS bf16 GEMM: {fp8 / bf16:.2f}x (datasheet: 2x)")
print("mma.sync bf16:", d.get("mma_sync_bf16_tflops"), " cuBLAS bf16:", bf16, " memcpy TB/s:", d.get("memcpy_tbs"))
PY
cp .roofline/ceilings/h200-sxm.yaml "$OUT/measured-h200-sxm.yaml" 2>/dev/null || log "no saved .roofline/ceilings/h200-sxm.yaml"

# 2. The calculator: fp8 GEMMs against the H200's datasheet roofs, the same shapes in bf16 (the switch
#    line), and the refusal on a part without an FP8 roof.
for shape in 4096 8192 256,8192,8192 1,8192,8192; do
  for dtype in fp8 bf16; do
    name="calc-$dtype-${shape//,/x}"
    "$R" $FLAGS calc --gemm "$shape" --dtype "$dtype" --hardware h200-sxm > "$OUT/$name.txt" 2>&1
    "$R" $FLAGS calc --gemm "$shape" --dtype "$dtype" --hardware h200-sxm --json > "$OUT/$name.json" 2>&1
  done
done
cat "$OUT/calc-fp8-256x8192x8192.txt" | tee -a "$summary"
"$R" $FLAGS calc --gemm 4096 --dtype fp8 --hardware h200-sxm,h100-sxm,b200,l4,a100-40gb > "$OUT/calc-fp8-table.txt" 2>&1
cat "$OUT/calc-fp8-table.txt" >> "$summary"
"$R" $FLAGS calc --gemm 4096 --dtype fp8 --hardware a100-40gb > "$OUT/calc-fp8-a100.txt" 2>&1
log "calc fp8 on the A100 (must refuse, exit 2): exit $?: $(cat "$OUT/calc-fp8-a100.txt")"
log "== done in $(( $(date +%s) - start )) s"
