#!/usr/bin/env bash
# Lab 04 on the GPU machine, for the lead's batched run:
#   bash scripts/device/lab04.sh BUILD_DIR OUT_DIR
# BUILD_DIR must hold a configured build (roofline, both lab 04 programs and the two
# experiment programs are built here if missing). Steps, each logged under OUT_DIR, none
# stopping the others; OUT_DIR/summary.txt holds one line per step and the tables:
#   1. `roofline run` (verify only) of every skeleton: expected INCORRECT (outputs never written);
#   2. `roofline grade --all --solutions`: every solution verified, then timed beside its peer
#      (cudaMemcpy for the row sums, cuBLAS for the GEMMs) in the same run;
#   3. the latency probe: L2 and DRAM latency, idle and under a streaming load;
#   4. the overlap experiment, with Little's law from step 3's latency under load;
#   5. repeated gradings of the TMA-store GEMM (the cluster rung that aims past cuBLAS), for the spread;
#   6. the stage sweep (scripts/device/teaching.sh) with what is left of the time budget.
# Budget: 150 s once built (steps 5 and 6 shrink to fit; LAB04_BUDGET_S changes it).
set -u
BUILD=${1:?usage: lab04.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: lab04.sh BUILD_DIR OUT_DIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BUILD=$(cd "$BUILD" && pwd)
R="$BUILD/roofline"
FLAGS="--root $ROOT --build-dir $BUILD"
BUDGET=${LAB04_BUDGET_S:-150}
summary="$OUT/summary.txt"
: > "$summary"
log() { echo "$@" | tee -a "$summary"; }
export PATH=/usr/local/cuda/bin:$PATH

log "== lab 04 (async) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
cmake --build "$BUILD" --target roofline lab-04-async solution-04-async lab04-latency-probe lab04-overlap \
  > "$OUT/build.txt" 2>&1
log "build: rc=$? (not counted in the budget)"
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }

variants=$(python3 -c "
import re
for line in open('labs/04-async/lab.yaml'):
    m = re.match(r'\s*- \{name: (\w+)', line)
    if m: print(m.group(1))")

log "== 1. verify every skeleton (roofline run; expected INCORRECT)"
for v in $variants; do
  timeout 60 $R $FLAGS run "04-async/$v" --no-build > "$OUT/verify-labs-$v.txt" 2>&1
  log "  labs $v: rc=$? $(grep -m1 -oE "(INCORRECT|CORRECT)[^.]*" "$OUT/verify-labs-$v.txt")"
done

log "== 2. grade --all --solutions (verify, then each beside its peer in the same run) [$(elapsed) s]"
timeout 240 $R $FLAGS grade 04-async --all --solutions --no-build --json > "$OUT/grade-solutions.json" \
  2> "$OUT/grade-solutions.err"
log "  rc=$?"
python3 - "$OUT/grade-solutions.json" <<'PY' 2>&1 | tee -a "$summary"
import json, sys
items = json.load(open(sys.argv[1]))
items = items if isinstance(items, list) else [items]
print(f"  {'variant':26} {'outcome':9} {'time_us':>9} {'peer':>10} {'peer_us':>9} {'rate':>14} {'% of peer':>9}")
for d in items:
    if not isinstance(d, dict): continue
    name = d.get('target', '?').split('/')[-1]
    peer = d.get('peer', {}) or {}
    t = (d.get('time_s') or {}).get('median') or 0
    print(f"  {name:26} {d.get('outcome', '?'):9} {t*1e6:9.1f} {peer.get('name', '-'):>10} "
          f"{(peer.get('median_s') or 0)*1e6:9.1f} {d.get('achieved', 0):9.2f} {d.get('unit', ''):4} "
          f"{100*(d.get('fraction_of_peer') or 0):9.1f}")
PY
copy_tbs=$(python3 - "$OUT/grade-solutions.json" <<'PY' 2>/dev/null
import json, sys
items = json.load(open(sys.argv[1]))
for d in (items if isinstance(items, list) else [items]):
    if '/row_sum' in d.get('target', '') and d.get('unit') == 'TB/s' and (d.get('peer') or {}).get('rate'):
        print(round(d['peer']['rate'], 3)); break
PY
)
log "  cudaMemcpy's rate in this run: ${copy_tbs:-unknown} TB/s"

log "== 3. latency probe (pointer chase) [$(elapsed) s]"
timeout 60 "$BUILD/labs/lab04-latency-probe" > "$OUT/latency.txt" 2>&1
log "  rc=$?"
sed 's/^/  /' "$OUT/latency.txt" | tee -a "$summary" > /dev/null
timeout 60 "$BUILD/labs/lab04-latency-probe" --json > "$OUT/latency.json" 2>> "$OUT/latency.txt"
latency_ns=$(python3 -c "import json;print(json.load(open('$OUT/latency.json'))['dram_under_load_ns'])" 2>/dev/null || echo 600)
log "  latency under load for Little's law: $latency_ns ns"

log "== 4. overlap experiment [$(elapsed) s]"
log "  predicted first (README, 'predicted, not yet measured'): part A flat across A2 (same bytes in flight),"
log "  rising with U in A1 until the copy rate; part B serial ~ memory + compute, prefetched ~ max of the two"
timeout 60 "$BUILD/labs/lab04-overlap" --latency-ns "$latency_ns" ${copy_tbs:+--copy-tbs $copy_tbs} \
  > "$OUT/overlap.txt" 2>&1
log "  rc=$?"
sed 's/^/  /' "$OUT/overlap.txt" | tee -a "$summary" > /dev/null

log "== 5. repeated gradings of wgmma_tma_store_4096 / _8192 (same-run ratio to cuBLAS) [$(elapsed) s]"
for i in 1 2 3 4 5; do
  for v in wgmma_tma_store_4096 wgmma_tma_store_8192; do
    if (( $(elapsed) > BUDGET - 60 )); then log "  stopped before repeat $i of $v: keeping 60 s for the sweep"; break 2; fi
    timeout 60 $R $FLAGS grade "04-async/$v" --solutions --no-build --json > "$OUT/repeat-$v-$i.json" 2>> "$OUT/repeat.err"
    rc=$?
    log "  $v #$i: rc=$rc $(python3 -c "import json;d=json.load(open('$OUT/repeat-$v-$i.json'));print(f\"{100*d['fraction_of_peer']:.1f}% of cuBLAS, {d['time_s']['median']*1e6:.1f} us\")" 2>/dev/null)"
  done
done

log "== 6. stage sweep (teaching.sh) [$(elapsed) s]"
left=$(( BUDGET - $(elapsed) ))
if (( left > 15 )); then
  SWEEP_BUDGET_S=$(( left - 10 )) COPY_TBS=${copy_tbs:-} bash scripts/device/teaching.sh "$BUILD" "$OUT/sweep" \
    > "$OUT/sweep.txt" 2>&1
  log "  rc=$?"
  sed 's/^/  /' "$OUT/sweep/summary.txt" 2>/dev/null | tee -a "$summary" > /dev/null
else
  log "  skipped: $left s left of $BUDGET"
fi
log "== lab 04 done in $(elapsed) s (budget $BUDGET s)"
