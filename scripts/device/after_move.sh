#!/usr/bin/env bash
# One call after a move of the tree (issue 32) or of the judge's timing (issue 31): the whole
# build, the GPU tests (the Catch2 binary in two shards, each with a temp folder of its own,
# beside batch_gpu, the class in bwrap where ROOFLINE_BWRAP points at one: scripts/fetch_bwrap.sh),
# then each lab's solutions through the judge for as long as the call's budget lasts.
#   bash scripts/device/after_move.sh BUILD_DIR OUT_DIR SECONDS [LAB...]
# Writes OUT_DIR/all.tgz after every step, so a call cut short still brings back what ran.
set -uo pipefail
build=${1:?usage: after_move.sh BUILD_DIR OUT_DIR SECONDS [LAB...]}; out=${2:?}; budget=${3:?}; shift 3
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out/o"; o=$out/o; s=$o/summary.txt; t0=$(date +%s)
export PATH=/usr/local/cuda/bin:$PATH
note() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a "$s"; }
left() { echo $(( budget - ($(date +%s) - t0) )); }
pack() { tar czf "$out/all.tgz" -C "$o" . 2>/dev/null; }
note "$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader); bwrap: ${ROOFLINE_BWRAP:-none}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$o/build.log" 2>&1
timeout 200 cmake --build "$build" --parallel "$(nproc)" -- -k 0 >> "$o/build.log" 2>&1
note "build rc=$?"; grep -E "error|FAILED" "$o/build.log" | head -20 >> "$s"; pack
tests=$(( $(left) / 2 )); (( tests > 170 )) && tests=170
for i in 0 1; do
  (mkdir -p "/tmp/shard$i"; cd "$build/grader/tests/gpu" && TMPDIR=/tmp/shard$i timeout "$tests" ./roofline_gpu_tests \
     --shard-count 2 --shard-index $i > "$o/gpu$i.txt" 2>&1; note "gpu tests, shard $i: rc=$?") &
done
(cd "$build" && timeout "$tests" ctest -R '^batch_gpu$' --output-on-failure > "$o/batch_gpu.txt" 2>&1; note "batch_gpu rc=$?") &
wait; pack
for lab in "$@"; do
  (( $(left) < 25 )) && { note "no time left for $lab"; continue; }
  timeout $(( $(left) - 10 )) "$build/roofline" --root "$root" --build-dir "$build" grade "$lab" --all --solutions --no-build \
    --json > "$o/grade-$lab.json" 2> "$o/grade-$lab.err"
  note "grade $lab rc=$?"; pack
done
note done; pack
