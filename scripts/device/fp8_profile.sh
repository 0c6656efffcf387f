#!/usr/bin/env bash
# Lab 06's FP8 rungs under Nsight Compute: where the per-tensor and the block-scaled references
# spend their cycles at 8192^3 (tensor pipes, issue, stall reasons per SASS instruction), to account
# for the gap to cuBLASLt before another redesign. As stalls.sh does for the bf16 kernels:
# OUT/NAME.details.txt (every section), OUT/NAME.stalls.txt (stall_table.py's summary of the
# warp-state samples), OUT/summary.txt.
# Usage: bash scripts/device/fp8_profile.sh BUILD_DIR OUT_DIR   (BUILD_DIR built; ~1 min on an H200)
set -u
source "$(dirname "$0")/common.sh"
device_script_start "fp8_profile.sh BUILD_DIR OUT_DIR" "$@"
for variant in fp8_gemm_8192 fp8_gemm_block_scaled_8192; do
  s=$(date +%s)
  timeout 150 ncu --profile-from-start off --clock-control none --set full --launch-count 1 \
    --export "$OUT/$variant" --force-overwrite \
    "$BUILD/labs/solution-06-async" --variant "$variant" --mode once --timed-shape m=8192,n=8192,k=8192 --result - \
    > "$OUT/$variant.run.log" 2>&1
  rc=$?
  ncu --import "$OUT/$variant.ncu-rep" --page details --print-units base > "$OUT/$variant.details.txt" 2>&1
  ncu --import "$OUT/$variant.ncu-rep" --page source --csv --print-source sass > "$OUT/$variant.source.csv" 2>&1
  python3 scripts/device/stall_table.py "$OUT/$variant.source.csv" > "$OUT/$variant.stalls.txt" 2>&1
  rm -f "$OUT/$variant.source.csv" "$OUT/$variant.ncu-rep"
  log "$variant: rc=$rc in $(( $(date +%s) - s )) s; $(grep -m1 -E 'Duration' "$OUT/$variant.details.txt" | tr -s ' ')"
  grep -E "Compute \(SM\) Throughput|Memory Throughput|Registers Per Thread|Achieved Occupancy|Issued Warp Per Scheduler|No Eligible|Tensor" \
    "$OUT/$variant.details.txt" | tr -s ' ' | head -10 | sed 's/^/   /' | tee -a "$summary"
  head -25 "$OUT/$variant.stalls.txt" | sed 's/^/   /' >> "$summary"
done
