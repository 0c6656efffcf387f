#!/usr/bin/env bash
# The lead's batched GPU pass: build once, then the named steps in order, each under its own
# time limit, each logged under OUT_DIR/STEP/, none stopping the next.
#   bash scripts/device/lead_pass.sh BUILD_DIR OUT_DIR STEP[:SECONDS]...
# Steps: build, gpu-tests, ceilings (the roofs later steps' grades divide by), trust (the hostile class through batch), lab00 (overhead rungs in
# --all and alone), attention, decode, profile, lab06, lab06_repeats, layouts, teaching,
# start-cost (scripts/probes/start_cost.sh).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: lead_pass.sh BUILD_DIR OUT_DIR STEP[:SECONDS]...}
out=${2:?usage: lead_pass.sh BUILD_DIR OUT_DIR STEP[:SECONDS]...}
shift 2
mkdir -p "$out" "$build"
build=$(cd "$build" && pwd)
out=$(cd "$out" && pwd)
summary=$out/summary.txt
log() { echo "$@" | tee -a "$summary"; }
cd "$root"
export PATH=/usr/local/cuda/bin:$PATH
log "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
for request in "$@"; do
  step=${request%%:*}; limit=${request#*:}; [[ $limit == "$request" ]] && limit=300
  dir=$out/$step; repeat=2
  while [[ -e $dir ]]; do dir=$out/$step-$repeat; repeat=$(( repeat + 1 )); done  # a step named twice runs twice
  mkdir -p "$dir"; began=$(date +%s)
  case $step in
    build) timeout "$limit" bash -c "cmake -S . -B '$build' -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build '$build' --parallel $(nproc) -- -k 0" > "$dir/log.txt" 2>&1 ;;
    gpu-tests) (cd "$build" && timeout "$limit" ctest -L gpu --output-on-failure) > "$dir/log.txt" 2>&1 ;;
    trust) OUT=$dir SKIP_PLAIN=${SKIP_PLAIN:-1} timeout "$limit" bash scripts/device_trust.sh "$build" > "$dir/log.txt" 2>&1 ;;
    ceilings) timeout "$limit" "$build/roofline" --root "$root" --build-dir "$build" ceilings > "$dir/log.txt" 2>&1
      ceilings_rc=$?
      grep -E "mma.sync|cuBLAS bf16|cudaMemcpy" "$dir/log.txt" | head -4 > "$dir/summary.txt"
      (exit $ceilings_rc) ;;  # the step's rc is roofline's, not the summary's
    start-cost) timeout "$limit" bash scripts/probes/start_cost.sh "$build" > "$dir/summary.txt" 2>&1 ;;
    lab06) LAB06_BUDGET_S=$(( limit - 30 )) timeout "$limit" bash scripts/device/lab06.sh "$build" "$dir" > "$dir/log.txt" 2>&1 ;;
    *) timeout "$limit" bash "scripts/device/$step.sh" "$build" "$dir" > "$dir/log.txt" 2>&1 ;;
  esac
  rc=$?
  log "== $step: rc=$rc in $(( $(date +%s) - began )) s (limit $limit s)"
  if [[ -f $dir/summary.txt ]]; then head -60 "$dir/summary.txt" | tee -a "$summary" > /dev/null
  elif [[ -f $dir/trust-report.txt ]]; then head -40 "$dir/trust-report.txt" >> "$summary"
  else tail -8 "$dir/log.txt" >> "$summary"; fi
done
log "== $(date -u +%FT%TZ) done"
