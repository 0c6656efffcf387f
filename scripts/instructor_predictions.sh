#!/usr/bin/env bash
# The predictions we made for the reference solutions before measuring them
# (2026-11-29), recorded with `predict --solutions` so that the device run scores
# them like a student's. Usage: scripts/instructor_predictions.sh build/roofline
set -euo pipefail
R=${1:-build/roofline}
p() { "$R" predict "$@" --solutions; }
p 00-three-regimes/memory_scale --time-us 128 --regime memory --why "512 MiB moved at the ~4.2 TB/s cudaMemcpy reaches"
p 00-three-regimes/compute_fma --time-us 270 --regime compute --why "17.2 GFLOP at the ~63.5 TFLOP/s FMA ceiling"
p 00-three-regimes/overhead_launches --time-us 2000 --regime overhead --why "512 launches at ~4 us each, the work is nothing"
p 00-three-regimes/overhead_graph --time-us 270 --regime overhead --why "512 graph kernel nodes at ~0.5 us each"
p 01-memory-roof/fma_compute_fp32 --time-us 280 --regime compute --why "17.2 GFLOP at ~95% of the 63.5 TFLOP/s FMA ceiling"
p 00-three-regimes/overhead_fused --time-us 5 --regime overhead --why "one launch plus 512 dependent FMAs per thread, about 1 us of work"
