#!/usr/bin/env bash
# A GPU shared with another process, on the device: the watched replay watched again before a
# refusal (grader/lib/grading/replay_retry.hpp), and the other processes nvidia-smi lists named
# (gpu_neighbours.hpp). Assumes BUILD_DIR is configured and built (roofline, roofline-judge,
# lab-99-broken-kernels, roofline_gpu_tests); about 90 s of GPU time.
#   bash scripts/device/contention.sh BUILD_DIR OUT_DIR
set -uo pipefail
source "$(dirname "$0")/common.sh"
device_script_start "contention.sh BUILD_DIR OUT_DIR" "$@"
R=$BUILD/roofline
query=(--query-compute-apps=gpu_uuid,pid,process_name,used_memory --format=csv,noheader)
log "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid --format=csv,noheader)"

# The fixture lab with the real hardware profiles, as the GPU tests build it.
fixtures=$(fixture_root "$ROOT/grader/tests/gpu/fixture-root/labs")
flags="--json --score-without-prediction --seed 7 --no-build"

fields='import json,sys
text=open(sys.argv[1]).read(); g=json.loads(text[text.find("{"):])
r=g.get("watched_replay") or {}; s=g.get("shared_gpu") or {}
print("  outcome %s, median %.2f us; watched replay %s x%.2f%s; grading_seconds %s" % (
    g.get("outcome"), ((g.get("time_s") or {}).get("median") or 0)*1e6, r.get("median_s"),
    r.get("timed_over_watched") or 0, ", FIRST " + json.dumps(r["first"]) if "first" in r else "",
    json.dumps(g.get("grading_seconds"))))
for key in ("note",): 
    if g.get(key): print("  note:", g[key])
if r.get("note"): print("  replay note:", r["note"])
if s: print("  shared_gpu:", s.get("note")); print("  processes:", json.dumps(s.get("processes")))
if g.get("verdict") or g.get("reason"): print("  verdict:", (g.get("verdict") or g.get("reason"))[:700])'

grade() {  # grade NAME VARIANT: one grading, its JSON and a summary
  local name=$1 variant=$2 s=$(date +%s.%N)
  "$R" --root "$fixtures" --build-dir "$BUILD" grade "99-broken-kernels/$variant" $flags \
    > "$OUT/$name.json" 2> "$OUT/$name.err"
  local rc=$?
  log "== $name ($variant) rc=$rc in $(python3 -c "print(f'{$(date +%s.%N)-$s:.1f}')") s"
  python3 -c "$fields" "$OUT/$name.json" 2>&1 | tee -a "$summary"
}

# 1. Alone: no note about other processes, the honest copy watched once, the kernel slow under
#    every watch refused after two watches ("Watched twice").
log "== nvidia-smi alone: $(nvidia-smi "${query[@]}" | tr '\n' ';')"
t0=$(date +%s.%N); for i in 1 2 3 4 5; do nvidia-smi "${query[@]}" > /dev/null; done
log "   nvidia-smi's listing takes $(python3 -c "print(f'{($(date +%s.%N)-$t0)/5*1000:.0f}')") ms (a grading asks it twice per variant timed)"
grade alone-correct correct
grade alone-slow-when-watched slow_when_watched

# 2. With another process spinning on every SM (~10 ms kernels for 30 s): the honest copy's
#    report should carry the shared-GPU note naming the hog's pid; its replay may or may not be
#    slowed past 3x (if so, JSON watched_replay.first and a replay note, or a refusal naming the hog).
cat > "$OUT/hog.cu" <<'CU'
#include <cstdlib>
#include <ctime>
__global__ void spin(long long cycles, int* sink) {
    long long start = clock64();
    while (clock64() - start < cycles) {}
    if (threadIdx.x == 0 && blockIdx.x == 0) *sink = 1;
}
int main(int argc, char** argv) {
    double seconds = argc > 1 ? std::atof(argv[1]) : 30;
    int* sink = nullptr;
    cudaMalloc(&sink, sizeof(int));
    std::time_t end = std::time(nullptr) + std::time_t(seconds);
    while (std::time(nullptr) < end) {
        spin<<<132 * 4, 256>>>(20000000LL, sink);
        cudaDeviceSynchronize();
    }
    return 0;
}
CU
if nvcc -O2 -o "$OUT/gpu-hog" "$OUT/hog.cu" > "$OUT/hog-build.txt" 2>&1; then
  "$OUT/gpu-hog" 30 & hog=$!
  sleep 2
  log "== hog pid $hog; nvidia-smi with it: $(nvidia-smi "${query[@]}" | tr '\n' ';')"
  grade shared-correct-1 correct
  grade shared-correct-2 correct
  grade shared-slow-when-watched slow_when_watched
  kill "$hog" 2>/dev/null; wait "$hog" 2>/dev/null
else
  log "hog did not build: $(tail -5 "$OUT/hog-build.txt")"
fi

# 3. The GPU test of the retry (fixture slow_when_watched, the control beside it).
# A name with a comma is two names to Catch2: the test is named up to its comma, with a wildcard.
if [[ -x $BUILD/grader/tests/gpu/roofline_gpu_tests ]]; then
  "$BUILD/grader/tests/gpu/roofline_gpu_tests" "grade: a replay too slow is watched again*" \
    > "$OUT/gpu-test-retry.txt" 2>&1
  log "== gpu test (retry) rc=$?"; tail -4 "$OUT/gpu-test-retry.txt" | tee -a "$summary"
fi
rm -rf "$fixtures"
