#!/usr/bin/env bash
# Lab 06 part 5 (the TMA-store wgmma GEMM): its schedule and its pipeline, for the lead's batched run:
#   bash scripts/device/sched.sh BUILD_DIR OUT_DIR
# Goal: >= 100% of cuBLAS at 4096^3 and 8192^3 in every one of five gradings (run 60, with the
# schedule of 2026-12-01: 4096^3 102.0-102.8%, 8192^3 99.6-101.9%, one under 100). Steps, each
# logged under OUT_DIR, none stopping the others; OUT_DIR/summary.txt gets the lines that
# matter (at most 40):
#   1. the solution (PipelineInUse under the shape rule) through the grader's lab program on
#      odd shapes (80, 67 and 133 pairs on 66 clusters; K slices 1, 2, 3, 17; the rule runs
#      them as whole pairs, the probe below forces stream-K on them), then the skeleton
#      (expected INCORRECT);
#   2. the pipelines probe (scripts/probes/sched_variants.cu, compiled here): the schedule walked
#      on the host, every pipeline checked against cuBLAS (odd, edge and timed shapes), then
#      timed in turns with cuBLAS at 4096^3 and 8192^3, L2 flushed, medians; its table;
#   3. `roofline grade 06-async/wgmma_tma_store_{4096,8192} --solutions`, five times each:
#      verified, then timed beside cuBLAS in the same run; the same-run fraction of each.
# ~80-110 s on an H200 once built (ten gradings ~50 s; the probe compiles during step 1).
set -u
BUILD=${1:?usage: sched.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: sched.sh BUILD_DIR OUT_DIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BUILD=$(cd "$BUILD" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
R="$BUILD/roofline"
FLAGS="--root $ROOT --build-dir $BUILD"
LOG="$OUT/predictions.yaml"   # the gradings' log: never the course's
LAB=06-async
summary="$OUT/summary.txt"
: > "$summary"
log() { echo "$@" | tee -a "$summary"; }
start=$(date +%s)
elapsed() { echo "$(( $(date +%s) - start )) s"; }

log "== lab 06 part 5 pipelines $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1)"
cmake --build "$BUILD" --target roofline lab-$LAB solution-$LAB > "$OUT/build.log" 2>&1
log "build: rc=$?"

# The probe compiles (~30 s of CPU) while step 1 checks correctness (nothing timed there).
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -Igrader/include -Ilabs/06-async -o "$OUT/sched_variants" \
  scripts/probes/sched_variants.cu grader/harness/tma.cu -lcublas > "$OUT/probe-compile.log" 2>&1 &
compile_pid=$!

# 1. The solution on stream-K's edge shapes (the grader's own verify, fresh inputs, guards).
shapes="m=2560,n=2048,k=1088 m=2560,n=2048,k=64 m=2560,n=2048,k=128 m=17152,n=256,k=192 m=256,n=34048,k=256 m=4096,n=4096,k=4096"
args=(); for s in $shapes; do args+=(--verify-shape "$s"); done
timeout 60 "$BUILD/labs/solution-$LAB" --variant wgmma_tma_store_4096 --mode verify "${args[@]}" --seed 7 \
  --atol 0.01 --rtol 0.008 --max-rel-l2 0.004 --result "$OUT/solution-verify.json" > "$OUT/solution-verify.log" 2>&1
rc=$?
python3 - "$OUT/solution-verify.json" "$rc" <<'PY' | tee -a "$summary"
import json, sys
path, rc = sys.argv[1:]
checks = []
def walk(x):
    if isinstance(x, dict):
        for k, v in x.items():
            if k == "checks" and isinstance(v, list): checks.extend(v)
            else: walk(v)
    elif isinstance(x, list):
        for v in x: walk(v)
try:
    j = json.load(open(path))
    walk(j)
except Exception as e:
    print(f"solution verify (stream-K edges): rc {rc}, no JSON ({e}); see solution-verify.log")
    sys.exit()
bad = [c for c in checks if not c["report"]["passed"]]
print(f"solution verify (stream-K edges): rc {rc}, status {j.get('status')}, {len(checks)} checks, {len(bad)} failed"
      + (f": {j.get('message', '')}"[:120] if not checks else ""))
for c in bad[:3]: print(f"  FAILED {c['shape']}: {c['report'].get('verdict', '')}"[:160])
PY
timeout 60 "$R" $FLAGS run "$LAB/wgmma_tma_store_4096" --no-build > "$OUT/skeleton.log" 2>&1
rc=$?
log "skeleton wgmma_tma_store_4096: rc=$rc $([[ $rc == 1 ]] && echo 'INCORRECT, as it should be' || echo 'UNEXPECTED: want 1')"

# 2. The pipelines probe: correctness first (both schedules forced), then the table.
log "== pipelines probe ($(elapsed))"
wait "$compile_pid"
log "probe compile: rc=$? ($(elapsed)); kernels that spill: $(grep -cE '[1-9][0-9]* bytes spill (stores|loads)' "$OUT/probe-compile.log")"
grep -iE "C7515|warning" "$OUT/probe-compile.log" | head -2 | cut -c1-160 | tee -a "$summary"
if [[ -x "$OUT/sched_variants" ]]; then
  ROOFLINE_LAB04_DIAG=1 timeout 90 "$OUT/sched_variants" 80 > "$OUT/probe.log" 2>&1
  log "probe: rc=$? ($(elapsed))"
  grep -m1 "cudaOccupancyMaxActiveClusters" "$OUT/probe.log" | cut -c1-150 >> "$summary"
  grep -E "^schedule (correct|INCORRECT)" "$OUT/probe.log" | cut -c1-120 >> "$summary"
  grep -E "^verify" "$OUT/probe.log" | sed 's/^verify *//; s/ correct on all shapes/ ok/' | paste -sd, | sed 's/^/  verify: /' >> "$summary"
  grep -E "WRONG" "$OUT/probe.log" | head -3 | cut -c1-160 >> "$summary"
  grep -E "^medians|^schedule +\||^[A-Za-z0-9+() ]+ +\| " "$OUT/probe.log" | cut -c1-110 >> "$summary"
  rm -f "$OUT/sched_variants"
fi

# 3. The solution graded beside cuBLAS, five times per size (the goal counts five).
log "== grade --solutions, five times each ($(elapsed))"
for i in 1 2 3 4 5; do
  for v in wgmma_tma_store_4096 wgmma_tma_store_8192; do
    timeout 60 "$R" $FLAGS grade "$LAB/$v" --solutions --no-build --log "$LOG" --json > "$OUT/grade-$v-$i.json" \
      2> "$OUT/grade-$v-$i.err"
    echo "$v $i rc=$?" >> "$OUT/grade-rc.txt"
  done
done
python3 - "$OUT" <<'PY' | tee -a "$summary"
import json, pathlib, statistics, sys
out = pathlib.Path(sys.argv[1])
for v in ("wgmma_tma_store_4096", "wgmma_tma_store_8192"):
    fractions, status = [], []
    for f in sorted(out.glob(f"grade-{v}-*.json")):
        try:
            j = json.loads(f.read_text())
            fractions.append(100 * j["fraction_of_peer"])
            status.append(str(j.get("outcome", "?")))
        except Exception:
            status.append("no result")
    if fractions:
        print(f"{v}: {' '.join('%.1f' % x for x in fractions)} % of cuBLAS; median {statistics.median(fractions):.1f}, "
              f"min {min(fractions):.1f} (goal: every one >= 100); {', '.join(sorted(set(status)))}")
    else:
        print(f"{v}: no grading came back ({', '.join(status)}); see grade-{v}-*.err")
PY
log "== done ($(elapsed))"
