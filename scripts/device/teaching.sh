#!/usr/bin/env bash
# Lab 06's stage sweep on the GPU: the row-sum ring (solutions/06-async/kernels/01_row_sum_tma_ring.cu)
# built with kStages = 1, 2, 3, 4, 6, 8, each depth predicted first from Little's law (the course's
# 600 ns latency, the copy rate cudaMemcpy reaches in the same run) and then graded beside cudaMemcpy.
# The measured curve lands next to the prediction in OUT_DIR/sweep.txt and in a prediction log of its
# own (OUT_DIR/sweep-predictions.yaml); the solution file is restored at the end.
# Usage: bash scripts/device/teaching.sh BUILD_DIR OUT_DIR   (BUILD_DIR configured from this tree)
# SWEEP_BUDGET_S (default 150) stops the sweep before a depth that would start past it;
# scripts/device/lab06.sh runs this last and hands it what is left of its own budget.
set -u
BUILD=${1:?usage: teaching.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: teaching.sh BUILD_DIR OUT_DIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BUILD=$(cd "$BUILD" && pwd)
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
R="$BUILD/roofline"
FLAGS="--root $(pwd) --build-dir $BUILD"
FILE=solutions/06-async/kernels/01_row_sum_tma_ring.cu
LOG="$OUT/sweep-predictions.yaml"
summary="$OUT/summary.txt"
log() { echo "$@" | tee -a "$summary"; }
start=$(date +%s)
cp "$FILE" "$OUT/ring.cu.orig"
restore() { cp "$OUT/ring.cu.orig" "$FILE"; }
trap restore EXIT

log "== teaching: lab 06 stage sweep, $(date -u +%FT%TZ), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null)"
# The copy rate to predict against: cudaMemcpy as `roofline ceilings` measures it (4.2 TB/s if that fails).
# COPY_TBS, when set (lab06.sh passes cudaMemcpy's rate from its own grading), skips `ceilings`.
if [[ -n "${COPY_TBS:-}" ]]; then
  rate_tbs=$COPY_TBS
else
  "$R" $FLAGS ceilings --json > "$OUT/ceilings.json" 2> "$OUT/ceilings.log"
  rate_tbs=$(python3 -c "import json;d=json.load(open('$OUT/ceilings.json'));print(d.get('memcpy_tbs') or d['memory']['memcpy_tbs'])" 2>/dev/null || echo 4.2)
fi
log "copy rate for the predictions: $rate_tbs TB/s; latency 600 ns; 132 SMs; 16 KiB tiles"
printf "%-8s %-10s %-14s %-14s %-10s %s\n" kStages in_flight predicted_% measured_% time_us outcome | tee -a "$OUT/sweep.txt" "$summary" > /dev/null
cat "$OUT/sweep.txt"

for stages in 1 2 3 4 6 8; do
  if (( $(date +%s) - start > ${SWEEP_BUDGET_S:-150} )); then log "stopping before kStages = $stages: past ${SWEEP_BUDGET_S:-150} s"; break; fi
  sed -i "s/^constexpr int kStages = [0-9]*;/constexpr int kStages = $stages;/" "$FILE"
  grep -q "^constexpr int kStages = $stages;" "$FILE" || { log "kStages = $stages: could not set the constant"; continue; }
  if ! cmake --build "$BUILD" --target solution-06-async > "$OUT/build-$stages.log" 2>&1; then
    log "kStages = $stages: build failed (build-$stages.log)"; continue
  fi
  # With a block barrier after each tile, about kStages - 1 tiles are in flight per SM (kStages = 1: none
  # overlap the sum, so count 1). Little's law: need = rate x 600 ns / 132 SMs.
  read -r in_flight predicted_pct gbps <<< "$(python3 -c "
s=$stages; rate=$rate_tbs*1e12
need=rate*600e-9/132
tiles=max(s-1,1)
frac=min(1.0, tiles*16384/need)
print(tiles, round(100*frac,1), round(rate*frac/1e9))")"
  "$R" $FLAGS predict 06-async/row_sum_tma_ring --solutions --log "$LOG" --gbps "$gbps" --regime memory \
      --why "kStages = $stages: $in_flight x 16 KiB in flight per SM against Little's law's rate x 600 ns / 132 SMs" \
      > "$OUT/predict-$stages.log" 2>&1
  "$R" $FLAGS grade 06-async/row_sum_tma_ring --solutions --no-build --log "$LOG" --json > "$OUT/grade-$stages.json" 2> "$OUT/grade-$stages.err"
  rc=$?
  measured=$(python3 -c "import json;d=json.load(open('$OUT/grade-$stages.json'));print(round(100*d['fraction_of_peer'],1), round(d['time_s']['median']*1e6,1))" 2>/dev/null || echo "- -")
  printf "%-8s %-10s %-14s %-14s %-10s %s\n" "$stages" "$in_flight" "$predicted_pct" $measured "rc=$rc" | tee -a "$OUT/sweep.txt" "$summary"
done
log "== teaching: done in $(( $(date +%s) - start )) s (the knee of measured_% says the latency under load: tiles x 16 KiB x 132 / rate)"
