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
  ncu_report_summary "$variant" $rc $(( $(date +%s) - s ))
done
