#!/usr/bin/env bash
# Where the slow kernels' time goes: one ncu profile (--set full) of each solution below at its
# timed shape, for the people tuning them (no GPU on their machines, and no ncu there to open a
# report). For each NAME: OUT/NAME.details.txt (every section, with ncu's own advice) and
# OUT/NAME.source.csv (warp-state samples per SASS instruction), OUT/NAME.stalls.txt (its summary by
# scripts/device/stall_table.py), OUT/NAME.ncu-rep beside them.
#   bash scripts/device/stalls.sh BUILD_DIR OUT_DIR
# STALLS="r9 attn_ws" (names from the list at the end) profiles only those; unset, all of them.
# ~1.5 min on an H200 once built. Each profile's rc is the lab program's: 1 when its check of the
# profiled launch, at the program's default tolerances (not the lab's), finds bf16 rounding; the
# profile itself is unaffected (correctness is graded elsewhere).
set -u
BUILD=${1:?usage: stalls.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: stalls.sh BUILD_DIR OUT_DIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
BUILD=$(cd "$BUILD" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
summary="$OUT/summary.txt"
: > "$summary"
log() { echo "$@" | tee -a "$summary"; }
log "== stalls $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1); $(ncu --version | tail -1)"
cmake --build "$BUILD" --target solution-03-gemm solution-04-fusion solution-06-async solution-08-attention \
  > "$OUT/build.log" 2>&1 || log "build: failed (see build.log)"

profile() {  # profile NAME LAB VARIANT SHAPE
  local name=$1 lab=$2 variant=$3 shape=$4 s=$(date +%s)
  [[ -n ${STALLS:-} && " $STALLS " != *" $name "* ]] && return 0
  timeout 240 ncu --profile-from-start off --clock-control none --set full --launch-count 1 \
    --export "$OUT/$name" --force-overwrite \
    "$BUILD/labs/solution-$lab" --variant "$variant" --mode once --timed-shape "$shape" --result - \
    > "$OUT/$name.run.log" 2>&1
  local rc=$?
  ncu --import "$OUT/$name.ncu-rep" --page details --print-units base > "$OUT/$name.details.txt" 2>&1
  ncu --import "$OUT/$name.ncu-rep" --page source --csv --print-source sass > "$OUT/$name.source.csv" 2>&1
  python3 scripts/device/stall_table.py "$OUT/$name.source.csv" > "$OUT/$name.stalls.txt" 2>&1
  log "$name: rc=$rc in $(( $(date +%s) - s )) s; $(grep -m1 -E 'Duration' "$OUT/$name.details.txt" | tr -s ' ')"
  grep -E "Compute \(SM\) Throughput|Memory Throughput|Registers Per Thread|Achieved Occupancy|Issued Warp Per Scheduler|No Eligible" \
    "$OUT/$name.details.txt" | tr -s ' ' | head -6 | sed 's/^/   /' | tee -a "$summary"
}

profile r9 03-gemm r9_pipelined m=4096,n=4096,k=4096
profile given_bare_k512 04-fusion gemm_bare_k512 m=8192,n=8192,k=512
profile given_fused_k512 04-fusion gemm_bias_gelu_fused_k512 m=8192,n=8192,k=512
profile given_bare_4096 04-fusion gemm_bare m=4096,n=4096,k=4096
profile attn_pipelined 08-attention pipelined batch=4,heads=16,seq=4096,head_dim=128
profile attn_ws 08-attention warp_specialized batch=4,heads=16,seq=4096,head_dim=128
profile tma_store_8192 06-async wgmma_tma_store_8192 m=8192,n=8192,k=8192
tar -C "$OUT" -czf "$OUT/stalls.tgz" --exclude=stalls.tgz --exclude='*.ncu-rep' .
log "== done $(date -u +%FT%TZ)"
