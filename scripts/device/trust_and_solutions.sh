#!/usr/bin/env bash
# The lead's GPU pass behind trusted grading and the grader's shape: build, GPU tests, lab 00's
# overhead rungs graded in one --all run and alone (a watched process must no longer slow the
# timed one), every shipped lab's solutions graded (the fractions must match the last recorded
# run within noise; each grade JSON carries watched_replay), and the class of
# scripts/make_test_submissions.sh through `roofline batch` (outcomes and wall time).
#   bash scripts/device/trust_and_solutions.sh BUILD_DIR OUT_DIR
# SKIP_BUILD=1, SKIP_GPU_TESTS=1, SKIP_TRUST=1 leave steps out. One step failing never stops the next.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: trust_and_solutions.sh BUILD_DIR OUT_DIR}
out=${2:?usage: trust_and_solutions.sh BUILD_DIR OUT_DIR}
mkdir -p "$out" "$build"
build=$(cd "$build" && pwd)
summary=$out/summary.txt
log() { echo "$@" | tee -a "$summary"; }
cd "$root"
export PATH=/usr/local/cuda/bin:$PATH
R=$build/roofline

log "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  s=$(date +%s)
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$out/build.log" 2>&1
  cmake --build "$build" --parallel "$(nproc)" -- -k 0 >> "$out/build.log" 2>&1
  log "build rc=$? in $(( $(date +%s) - s )) s"
  grep -E "error|FAILED" "$out/build.log" | head -20 | tee -a "$summary"
fi

if [[ "${SKIP_GPU_TESTS:-0}" != 1 ]]; then
  s=$(date +%s)
  (cd "$build" && ctest -L gpu --output-on-failure) > "$out/gpu-tests.txt" 2>&1
  log "gpu tests rc=$? in $(( $(date +%s) - s )) s"; tail -6 "$out/gpu-tests.txt" | tee -a "$summary"
fi

fields='import json,sys
d=json.load(open(sys.argv[1])); d=d if isinstance(d,list) else [d]
for g in d:
    t=(g.get("time_s") or {}).get("median") or 0; r=g.get("watched_replay") or {}; s=g.get("grading_seconds") or {}
    print("  %s: %s median %.2f us, %.1f%% of peer, watched replay %.2f us over %s launches (timed/watched %.2f); timing job %.2f s, watch job %.2f s %s" % (
        g.get("target"), g.get("outcome"), t*1e6, 100*g.get("fraction_of_peer",0), r.get("median_s",0)*1e6,
        r.get("launches",0), r.get("timed_over_watched",0), s.get("timing",0), s.get("watch",0), (g.get("verdict") or "")[:200]))'

log "== lab 00 overhead rungs: --all, then each alone"
$R grade 00-three-regimes --all --solutions --no-build --json > "$out/lab00-all.json" 2> "$out/lab00-all.err"
python3 -c "$fields" "$out/lab00-all.json" 2>&1 | tee -a "$summary"
for v in overhead_graph overhead_launches; do
  $R grade 00-three-regimes/$v --solutions --no-build --json > "$out/lab00-$v.json" 2>> "$out/lab00-all.err"
  python3 -c "$fields" "$out/lab00-$v.json" 2>&1 | tee -a "$summary"
done

for lab in 01-memory-roof 03-gemm 04-fusion 06-async; do
  s=$(date +%s)
  $R grade $lab --all --solutions --no-build --json > "$out/grade-$lab.json" 2> "$out/grade-$lab.err"
  log "== $lab --all --solutions rc=$? ($(( $(date +%s) - s )) s)"
  python3 -c "$fields" "$out/grade-$lab.json" 2>&1 | tee -a "$summary"
done

if [[ "${SKIP_TRUST:-0}" != 1 ]]; then
  log "== the class through roofline batch (sandboxed)"
  OUT=$out/trust SKIP_PLAIN=1 bash scripts/device_trust.sh "$build" > "$out/trust.txt" 2>&1
  log "trust rc=$?"; tail -14 "$out/trust.txt" | tee -a "$summary"
fi
log "== $(date -u +%FT%TZ) done"
