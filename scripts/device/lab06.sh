#!/usr/bin/env bash
# Lab 06 on the GPU machine, for the lead's batched run:
#   bash scripts/device/lab06.sh BUILD_DIR OUT_DIR
# BUILD_DIR must hold a configured build (roofline, both lab 06 programs and the two
# experiment programs are built here if missing). Steps, each logged under OUT_DIR, none
# stopping the others; OUT_DIR/summary.txt holds one line per step and the tables:
#   1. `roofline run` (verify only) of every skeleton: expected INCORRECT (outputs never written);
#   2. `roofline grade --all --solutions`: every solution verified, then timed beside its peer
#      (cudaMemcpy for the row sums, cuBLAS for the GEMMs) in the same run;
#   3. the latency probe: L2 and DRAM latency, idle and under a streaming load;
#   4. the overlap experiment, with Little's law from step 3's latency under load;
#   5. diagnostics of the cluster rungs (LAB06_DIAG=0 skips it; ~30 s): the SASS of each
#      GEMM kernel counted (no MEMBAR.ALL.GPU may sit in a main loop), the resident-cluster
#      count the launch was given (ROOFLINE_LAB04_DIAG), and, where ncu exists, one profiled
#      launch of part 4 and of part 3 at 4096^3 (speed of light, launch, occupancy, stalls);
#   6. repeated gradings of the four cluster rungs, for the spread;
#   7. the stage sweep (scripts/device/teaching.sh), if at least 30 s of the budget are left.
# Budget: 150 s once built (steps 6 and 7 shrink to fit; LAB06_BUDGET_S changes it). A quick
# run: LAB06_BUDGET_S=60 keeps steps 1-5 and a few repeats, and skips the sweep.
set -u
BUILD=${1:?usage: lab06.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: lab06.sh BUILD_DIR OUT_DIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BUILD=$(cd "$BUILD" && pwd)
R="$BUILD/roofline"
FLAGS="--root $ROOT --build-dir $BUILD"
BUDGET=${LAB06_BUDGET_S:-150}
summary="$OUT/summary.txt"
: > "$summary"
log() { echo "$@" | tee -a "$summary"; }
export PATH=/usr/local/cuda/bin:$PATH

log "== lab 06 (async) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
cmake --build "$BUILD" --target roofline lab-06-async solution-06-async lab04-latency-probe lab04-overlap \
  > "$OUT/build.txt" 2>&1
log "build: rc=$? (not counted in the budget)"
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }

variants=$(python3 -c "
import re
for line in open('labs/06-async/lab.yaml'):
    m = re.match(r'\s*- \{name: (\w+)', line)
    if m: print(m.group(1))")

log "== 1. verify every skeleton (roofline run; expected INCORRECT)"
for v in $variants; do
  timeout 60 $R $FLAGS run "06-async/$v" --no-build > "$OUT/verify-labs-$v.txt" 2>&1
  log "  labs $v: rc=$? $(grep -m1 -oE "(INCORRECT|CORRECT)[^.]*" "$OUT/verify-labs-$v.txt")"
done

log "== 2. grade --all --solutions (verify, then each beside its peer in the same run) [$(elapsed) s]"
timeout 240 $R $FLAGS grade 06-async --all --solutions --no-build --json > "$OUT/grade-solutions.json" \
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

log "== 5. diagnostics of the cluster rungs [$(elapsed) s]"
if [[ "${LAB06_DIAG:-1}" != 0 ]]; then
  program="$BUILD/labs/solution-06-async"
  tol="--atol 1e-2 --rtol 8e-3 --max-rel-l2 4e-3"
  # SASS: per kernel, the fences and the async instructions. A MEMBAR.ALL.GPU per arrival
  # in the main loop is what held the first cluster solutions at ~60% of part 3.
  if command -v cuobjdump > /dev/null; then
    cuobjdump -sass "$program" > "$OUT/sass.txt" 2>&1
    python3 - "$OUT/sass.txt" <<'PY' 2>&1 | tee -a "$summary"
import re, sys
counts, name = {}, None
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"Function : (\S+)", line)
    if m:
        name = m.group(1); counts[name] = {}; continue
    if name and "gemm_wgmma" in name:
        for op in ("MEMBAR.ALL.GPU", "CCTL.IVALL", "HGMMA", "UTMALDG.2D.MULTICAST", "UTMASTG", "SYNCS.ARRIVE.TRANS64.RED"):
            if op + " " in line or op + ";" in line or op + "." in line:
                counts[name][op] = counts[name].get(op, 0) + 1
for name, c in counts.items():
    if "gemm_wgmma" in name:
        short = re.sub(r"_ZN\w*?_GLOBAL__N_\w*?(\d+)(gemm_wgmma\w*?)E.*", r"\2", name)
        print(f"  sass {short[:40]:40} " + " ".join(f"{k}={v}" for k, v in sorted(c.items())))
print("  (in the cluster kernels, 2 MEMBAR.ALL.GPU and 2 CCTL.IVALL are the cluster barriers at start and end)")
PY
  else
    log "  cuobjdump not found: no SASS counts"
  fi
  # The resident-cluster count the launch asked for, printed by the solutions' launch path.
  for v in wgmma_cluster_4096 wgmma_tma_store_4096; do
    ROOFLINE_LAB04_DIAG=1 timeout 30 "$program" --variant $v --mode verify --verify-shape m=256,n=256,k=64 $tol \
      --result "$OUT/diag-$v.json" > "$OUT/diag-$v.txt" 2>&1
    log "  $v launch: rc=$? $(grep -m1 "cudaOccupancyMaxActiveClusters" "$OUT/diag-$v.txt")"
  done
  if command -v ncu > /dev/null && [[ "${LAB06_NCU:-1}" != 0 ]]; then
    for v in wgmma_cluster_4096 wgmma_gemm_4096; do
      timeout 40 ncu --profile-from-start off --clock-control none --kernel-name regex:gemm_wgmma --launch-count 1 \
        --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
        "$program" --variant $v --mode once --verify-shape m=4096,n=4096,k=4096 $tol --launch-timeout-s 0 \
        --result "$OUT/ncu-$v.json" > "$OUT/ncu-$v.txt" 2>&1
      log "  ncu $v: rc=$? (full report: ncu-$v.txt)"
      grep -E "^ +(Duration|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|Registers Per Thread|Dynamic Shared Memory Per Block|Cluster Size|Grid Size|Theoretical Occupancy|Warp Cycles Per Issued Instruction|Block Limit Shared Mem|Block Limit Registers) " \
        "$OUT/ncu-$v.txt" | sed 's/^ */    /' | tee -a "$summary" > /dev/null
      grep -m2 -iE "stalled|stall" "$OUT/ncu-$v.txt" | cut -c1-240 | sed 's/^ */    /' | tee -a "$summary" > /dev/null
      (( $(elapsed) > BUDGET )) && break
    done
  else
    log "  ncu not found (or LAB06_NCU=0): no profile"
  fi
else
  log "  skipped (LAB06_DIAG=0)"
fi

# Keep 30 s for the sweep only when the budget has room for it (a quick run skips it).
sweep_reserve=$(( BUDGET >= 120 ? 40 : 0 ))
log "== 6. repeated gradings of the cluster rungs (same-run ratio to cuBLAS) [$(elapsed) s]"
for i in 1 2 3; do
  for v in wgmma_cluster_4096 wgmma_cluster_8192 wgmma_tma_store_4096 wgmma_tma_store_8192; do
    if (( $(elapsed) > BUDGET - sweep_reserve - 5 )); then log "  stopped before repeat $i of $v (budget)"; break 2; fi
    timeout 60 $R $FLAGS grade "06-async/$v" --solutions --no-build --json > "$OUT/repeat-$v-$i.json" 2>> "$OUT/repeat.err"
    rc=$?
    log "  $v #$i: rc=$rc $(python3 -c "import json;d=json.load(open('$OUT/repeat-$v-$i.json'));print(f\"{100*d['fraction_of_peer']:.1f}% of cuBLAS, {d['time_s']['median']*1e6:.1f} us\")" 2>/dev/null)"
  done
done

log "== 7. stage sweep (teaching.sh) [$(elapsed) s]"
left=$(( BUDGET - $(elapsed) ))
if (( left > 30 )); then
  SWEEP_BUDGET_S=$(( left - 10 )) COPY_TBS=${copy_tbs:-} bash scripts/device/teaching.sh "$BUILD" "$OUT/sweep" \
    > "$OUT/sweep.txt" 2>&1
  log "  rc=$?"
  sed 's/^/  /' "$OUT/sweep/summary.txt" 2>/dev/null | tee -a "$summary" > /dev/null
else
  log "  skipped: $left s left of $BUDGET"
fi
log "== lab 06 done in $(elapsed) s (budget $BUDGET s)"
