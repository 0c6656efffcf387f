#!/usr/bin/env bash
# Lab 10's decode attention under Nsight Compute: the lab's reference at batch 1 / 32k and batch 64 /
# 32k (bf16 cache), and the decode server's e4m3 cache (ticket A's fix: batch 64, 8k context) through
# the same kernel, one launch each, every section: issue rate, stall reasons per SASS instruction,
# DRAM throughput. Is the kernel waiting on bytes or on its own instructions?
#   bash scripts/device/decode_attention_profile.sh BUILD_DIR OUT_DIR   (BUILD_DIR built:
#   solution-10-production, roofline-decode-server-solution; about two minutes on an H200)
# Prediction (2026-12-02, before its first run): the bf16 kernel at b1 / 32k is at 84% of the copy
# rate with 8 warps an SM; per cached position a lane group spends ~200 instructions (16 widened
# values each of K and V, 64 + 64 FMAs, 12 shuffles, the online softmax) for 512 bytes, about
# 6,400 warp instructions per 64 KB an SM streams in ~2 us: the SM must issue ~1.6 a cycle from 8
# warps whose score sums are dependent chains. We expect "issue active" near 40-60% and stalls
# split between waiting on the full barrier (bytes) and the math's dependencies; the e4m3 cache
# (twice the positions per byte) issue-bound: issue active above 70%, DRAM under 70% of peak.
set -u
source "$(dirname "$0")/common.sh"
device_script_start "decode_attention_profile.sh BUILD_DIR OUT_DIR" "$@"
log "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1); $(ncu --version | tail -1)"
for shape in "b1_32k batch=1,context=32768,shortest=32768" "b64_32k batch=64,context=32768,shortest=32768"; do
  set -- $shape
  s=$(date +%s)
  timeout 150 ncu --profile-from-start off --clock-control none --set full --launch-count 1 \
    --export "$OUT/lab-$1" --force-overwrite \
    "$BUILD/labs/solution-10-production" --variant "decode_attention_$1" --mode once --timed-shape "$2" --result - \
    > "$OUT/lab-$1.run.log" 2>&1
  ncu_report_summary "lab-$1" $? $(( $(date +%s) - s ))
done
s=$(date +%s)
timeout 200 ncu --clock-control none --set full -k regex:attend_kernel --launch-skip 40 --launch-count 1 \
  --export "$OUT/server-fp8-b64-8k" --force-overwrite \
  "$BUILD/labs/roofline-decode-server-solution" --config instructor/incidents/10-production-fixes/incident-a-fixed.yaml \
  --steps 1 > "$OUT/server-fp8.run.log" 2>&1
ncu_report_summary server-fp8-b64-8k $? $(( $(date +%s) - s ))
