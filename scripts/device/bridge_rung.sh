#!/usr/bin/env bash
# Lab 06's bridge rung (kernels/10_mma_sync_tma.cu: lab 03 rung 9's mma.sync loop fed by a TMA
# producer warpgroup; issue 36) on the H200, for the lead's batched run:
#   bash scripts/device/bridge_rung.sh BUILD_DIR OUT_DIR
# BUILD_DIR must hold a configured build; the targets below are built first (not counted).
# Steps, each logged under OUT_DIR, none stopping the others; OUT_DIR/summary.txt gets one line per
# step and the table of the gradings:
#   1. `roofline ceilings --json`: the mma.sync roof (bf16 m16n8k16 from registers) and cuBLAS bf16,
#      measured in this call and saved, so that the gradings below divide by this call's roof;
#   2. the skeleton: `roofline run 06-async/mma_sync_tma_4096` must say INCORRECT (exit 1);
#   3. the solution: `roofline run --solutions` CORRECT on the lab's GEMM verify shapes (one slice,
#      5 slices with the ring wrapping, 24 tiles, 4096^3);
#   4. the solution graded five times at 4096^3 and twice at 8192^3 (`--solutions --json`):
#      the fraction of cuBLAS (scored) and of the mma.sync roof (the goal: >= 80%), per grading
#      and median (min-max);
#   5. lab 03's rung 9 solution graded once, the cp.async pipeline beside it in the same call;
#   6. compute-sanitizer memcheck and racecheck over the solution on two small shapes.
# ~2.5 min on an H200 once built (ceilings ~40 s, each 4096 grading ~10 s, each 8192 ~15 s, the
# sanitizers ~30 s): over the ~150 s asked for only if the ceilings run long.
set -u
BUILD=${1:?usage: bridge_rung.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: bridge_rung.sh BUILD_DIR OUT_DIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BUILD=$(cd "$BUILD" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
R="$BUILD/roofline"
FLAGS="--root $ROOT --build-dir $BUILD"
LAB=06-async
LOG="$OUT/predictions.yaml"   # the gradings' log: never the course's
summary="$OUT/summary.txt"
: > "$summary"
log() { echo "$@" | tee -a "$summary"; }
verdict() { grep -m1 -oE "(INCORRECT|CORRECT|FAILED|REFUSED)[^.]*" "$1" | cut -c1-110; }

log "== bridge rung (lab 06, kernels/10_mma_sync_tma.cu) $(date -u +%FT%TZ)" \
    "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1)"
s=$(date +%s)
cmake --build "$BUILD" --target roofline roofline-ceilings lab-$LAB solution-$LAB solution-03-gemm \
  > "$OUT/0-build.log" 2>&1
log "0. build: rc=$? in $(( $(date +%s) - s )) s"
# ptxas's registers and spills of the bridge kernel, if the build printed them (-Xptxas -v is not
# on by default); the standalone compile below always does.
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Igrader/include -Ilabs/$LAB -Xptxas -v -c \
  solutions/$LAB/kernels/10_mma_sync_tma.cu -o "$OUT/bridge.o" > "$OUT/0-ptxas.log" 2>&1
grep -E "registers|spill" "$OUT/0-ptxas.log" | sed 's/^ */   /' | head -2 | tee -a "$summary"
cuobjdump -sass "$OUT/bridge.o" 2>/dev/null | gzip > "$OUT/bridge.sass.gz"
rm -f "$OUT/bridge.o"

# 1. The roofs of this call.
timeout 240 "$R" $FLAGS ceilings --json > "$OUT/1-ceilings.json" 2> "$OUT/1-ceilings.log"
log "1. ceilings: rc=$?"
python3 - "$OUT/1-ceilings.json" <<'PY' | tee -a "$summary"
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("   ceilings JSON unreadable:", e); sys.exit()
def find(o, key):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == key: return v
            r = find(v, key)
            if r is not None: return r
    return None
mma = find(d, "mma_sync_bf16_tflops")
print("   mma.sync roof (bf16 m16n8k16):", mma, "TFLOP/s; 80% of it:", mma and round(0.8 * mma, 1))
PY

# 2-3. Skeleton INCORRECT (exit 1); solution CORRECT on the lab's GEMM verify shapes.
timeout 120 "$R" $FLAGS run "$LAB/mma_sync_tma_4096" --no-build > "$OUT/2-skeleton.log" 2>&1
rc=$?
log "2. skeleton run: rc=$rc $([[ $rc == 1 ]] && echo 'as it should be (1)' || echo 'UNEXPECTED: want 1') $(verdict "$OUT/2-skeleton.log")"
timeout 120 "$R" $FLAGS run "$LAB/mma_sync_tma_4096" --solutions --no-build > "$OUT/3-solution.log" 2>&1
log "3. solution run: rc=$? (want 0) $(verdict "$OUT/3-solution.log")"

# 4. Five gradings at 4096^3, three at 8192^3; 5. rung 9 of lab 03 once, in the same call.
grade() {  # grade TARGET FILE
  timeout 120 "$R" $FLAGS grade "$1" --solutions --no-build --json --log "$LOG" > "$OUT/$2.json" 2>> "$OUT/4-errors.txt"
  echo "$1 $2 rc=$?" >> "$OUT/4-rc.txt"
}
for i in 1 2 3 4 5; do grade "$LAB/mma_sync_tma_4096" "4-mma_sync_tma_4096-$i"; done
for i in 1 2; do grade "$LAB/mma_sync_tma_8192" "4-mma_sync_tma_8192-$i"; done
grade 03-gemm/r9_pipelined 5-r9_pipelined
log "4-5. gradings (rc per grading in 4-rc.txt):"
python3 - "$OUT" <<'PY' | tee -a "$summary"
import json, pathlib, statistics, sys
out = pathlib.Path(sys.argv[1])
print("   %-20s %-8s %-8s %-9s %-10s %s" % ("variant", "verdict", "TFLOP/s", "of cuBLAS", "of mma.sync", "roof (TFLOP/s)"))
def row(name, f):
    try:
        j = json.loads(f.read_text())
    except Exception:
        print("   %-20s no JSON came back (%s)" % (name, f.name)); return None
    roof = j.get("instruction_roof") or {}
    peer, mma = j.get("fraction_of_peer"), roof.get("fraction")
    print("   %-20s %-8s %-8.1f %-9s %-10s %s" % (name, j.get("verdict", "?")[:8], j.get("achieved", 0),
          "%.1f%%" % (100 * peer) if peer else "-", "%.1f%%" % (100 * mma) if mma else "not measured",
          roof.get("tflops", "-")))
    return peer, mma
for v in ("mma_sync_tma_4096", "mma_sync_tma_8192", "r9_pipelined"):
    files = sorted(out.glob("[45]-%s*.json" % v))
    got = [r for r in (row(v, f) for f in files) if r]
    for k, label in ((0, "of cuBLAS"), (1, "of the mma.sync roof")):
        xs = [100 * r[k] for r in got if r[k]]
        if len(xs) > 1:
            print("   %-20s %s: median %.1f%% (%.1f-%.1f), %d gradings" % (v, label, statistics.median(xs), min(xs), max(xs), len(xs)))
PY

# 6. Out-of-bounds accesses and shared-memory races, small shapes only (last: the timings matter more).
TOL="--atol 0.01 --rtol 0.008 --max-rel-l2 0.004"
s=$(date +%s)
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 "$BUILD/labs/solution-$LAB" \
  --variant mma_sync_tma_4096 --mode verify $TOL --verify-shape m=128,n=256,k=64 --verify-shape m=256,n=512,k=320 \
  --result - > "$OUT/6-memcheck.log" 2>&1
log "6. memcheck: rc=$? in $(( $(date +%s) - s )) s $(grep -m1 -E 'ERROR SUMMARY' "$OUT/6-memcheck.log")"
s=$(date +%s)
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 "$BUILD/labs/solution-$LAB" \
  --variant mma_sync_tma_4096 --mode verify $TOL --verify-shape m=256,n=512,k=320 --result - \
  > "$OUT/6-racecheck.log" 2>&1
log "6. racecheck: rc=$? in $(( $(date +%s) - s )) s $(grep -m1 -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$OUT/6-racecheck.log")"

log "== done $(date -u +%FT%TZ)"
