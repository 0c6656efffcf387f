#!/usr/bin/env bash
# The judge/runner split on the GPU (harness/judge.hpp): build, then grade through the judge and
# compare with the last recorded fractions (results/2026-12-01-h200-runs47-50.md for labs 00-01).
#   bash scripts/device/judge.sh BUILD_DIR OUT_DIR [quick|full]
# quick: lab 01's programs only, lab 01 graded, the fixtures; full: everything built, the GPU
# tests, labs 00-01 graded; labs (after full, SKIP_BUILD=1): labs 02-04 and 06-09 graded (solutions).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: judge.sh BUILD_DIR OUT_DIR [quick|full]}
out=${2:?usage}
what=${3:-quick}
mkdir -p "$out" "$build"; build=$(cd "$build" && pwd)
summary=$out/summary.txt
log() { echo "$@" | tee -a "$summary"; }
cd "$root"
export PATH=/usr/local/cuda/bin:$PATH
R=$build/roofline
log "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader) ($what)"
s=$(date +%s)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$out/build.log" 2>&1
if [[ ${SKIP_BUILD:-0} == 1 ]]; then
  true
elif [[ $what == quick ]]; then
  targets="roofline roofline-judge lab-01-memory-roof solution-01-memory-roof lab-99-broken-kernels lab-97-forgers"
  cmake --build "$build" --parallel "$(nproc)" --target $targets -- -k 0 >> "$out/build.log" 2>&1
else
  cmake --build "$build" --parallel "$(nproc)" -- -k 0 >> "$out/build.log" 2>&1
fi
log "build rc=$? in $(( $(date +%s) - s )) s"
grep -E "error|FAILED" "$out/build.log" | head -30 | tee -a "$summary"

fields='import json,sys
d=json.load(open(sys.argv[1])); d=d if isinstance(d,list) else [d]
for g in d:
    t=(g.get("time_s") or {}).get("median") or 0; s=g.get("grading_seconds") or {}
    print("  %s: %s median %.2f us, %.1f%% of peer; timing job %.2f s, watch job %.2f s %s" % (
        g.get("target"), g.get("outcome"), t*1e6, 100*g.get("fraction_of_peer",0), s.get("timing",0), s.get("watch",0),
        (g.get("verdict") or g.get("reason") or "")[:300]))'

grade() {  # grade LAB [extra flags]: solutions, --all, JSON
  local lab=$1; shift
  local s=$(date +%s.%N)
  $R grade "$lab" --all --solutions --no-build --json "$@" > "$out/grade-$lab.json" 2> "$out/grade-$lab.err"
  local rc=$?
  log "== $lab --all --solutions rc=$rc ($(python3 -c "print(f'{$(date +%s.%N)-$s:.1f}')") s)"
  python3 -c "$fields" "$out/grade-$lab.json" 2>&1 | tee -a "$summary"
  tail -3 "$out/grade-$lab.err" | tee -a "$summary"
}

[[ $what == quick ]] && grade 01-memory-roof
[[ $what == quick ]] && for fixture in 99-broken-kernels 97-forgers; do
  log "== fixtures ($fixture): each variant through the judge"
  $R --root grader/tests/gpu/fixture-root --build-dir "$build" grade $fixture --all --no-build --json --score-without-prediction --seed 7 \
    > "$out/grade-$fixture.json" 2> "$out/grade-$fixture.err"
  log "$fixture rc=$?"; python3 -c "$fields" "$out/grade-$fixture.json" 2>&1 | tee -a "$summary"; tail -5 "$out/grade-$fixture.err" | tee -a "$summary"
done

if [[ $what == full ]]; then
  (cd "$build" && ctest -L gpu -R "${GPU_TESTS:-.}" --output-on-failure) > "$out/gpu-tests.txt" 2>&1
  log "gpu tests rc=$?"; grep -E "passed|failed|FAILED|Test #" "$out/gpu-tests.txt" | tail -12 | tee -a "$summary"
  grade 00-three-regimes
  grade 01-memory-roof
  for lab in ${MORE_LABS:-}; do grade $lab; done
fi
if [[ $what == labs ]]; then
  for lab in 03-gemm 04-fusion 06-async 02-profile 08-attention 09-decode; do grade $lab; done
fi
log "== $(date -u +%FT%TZ) done"
tar czf "$out/logs.tgz" -C "$out" --exclude logs.tgz . 2>/dev/null
