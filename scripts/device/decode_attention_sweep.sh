#!/usr/bin/env bash
# Lab 10 (production): the redesigned decode attention (solutions/10-production/decode_attention_ring.cuh:
# one kernel, a ring of bulk copies of K and V tiles, the merge in the last block) on the H200,
# and a sweep of its compile-time knobs, so that one device call can choose them.
#   bash scripts/device/decode_attention_sweep.sh BUILD_DIR OUT_DIR
# BUILD_DIR is configured and built (all targets, or at least roofline, lab-10-production and
# solution-10-production). Steps, each logged under OUT_DIR, one line each in OUT_DIR/summary.txt:
#  1. the skeletons of the guided rung and the open rung INCORRECT, compute-sanitizer memcheck of
#     the solution on three odd shapes, the kernel's registers and shared memory;
#  2. the default configuration graded: `roofline grade 10-production --all --solutions
#     --no-build --json --score-without-prediction` (every variant beside cudaMemcpy of the same
#     bytes, in the same run);
#  3. each alternative configuration (CONFIGS below, or the CONFIGS environment variable: lines of
#     "name -DKNOB=V ..."): the solution's kernel objects rebuilt with those -D flags (nvcc's
#     NVCC_APPEND_FLAGS, ccache off so no object of another configuration is reused), graded once;
#     skipped once SWEEP_BUDGET_S seconds (default 330) have passed;
#  4. the default objects rebuilt, so BUILD_DIR is left as it was;
#  5. PyTorch's SDPA (enable_gqa=True) on the guided shapes, beside a torch copy of the same bytes
#     (scripts/device/decode_attention_torch.py OUT_DIR), where torch imports.
# OUT_DIR/sweep.txt: one line per configuration and variant: % of cudaMemcpy (same run), the time,
# correct or not (every verify shape of lab.yaml). The grades' JSON: OUT_DIR/grade-<config>.json.
# About 5-7 minutes: each grading of the lab ~30 s, each rebuild ~30-60 s.
set -u
source "$(dirname "$0")/common.sh"
device_script_start "decode_attention_sweep.sh BUILD_DIR OUT_DIR" "$@"
R="$BUILD/roofline"
LAB=10-production
t0=$(date +%s)
log() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a "$summary"; }  # common.sh's, with the seconds since the start
budget=${SWEEP_BUDGET_S:-330}

# name, then the -D flags (the knobs' defaults are in decode_attention_ring.cuh: 4 warps, the
# tensor cores, tiles of 64 positions, 3 stages, one wave of splits). CONFIGS="" grades the
# default configuration alone; only an unset CONFIGS takes the list below.
CONFIGS=${CONFIGS-"lanes -DDECODE_ATTENTION_MMA=0
lanes_w8_l16 -DDECODE_ATTENTION_MMA=0 -DDECODE_ATTENTION_WARPS=8 -DDECODE_ATTENTION_LANES_PER_ROW=16
waves2 -DDECODE_ATTENTION_WAVES=2"}

log "$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>&1)"
cmake --build "$BUILD" --target roofline lab-$LAB solution-$LAB > "$OUT/build.log" 2>&1
log "build rc=$?"

# The solution's kernel objects: removed, they are rebuilt by the next build of the target.
objects() { find "$BUILD" -path "*solution-$LAB-kernels.dir*" -name '*.cu.o'; }
rebuild() {  # rebuild FLAGS...: the solution program with these -D flags ("" = the defaults)
  objects | xargs -r rm -f
  if [[ -n "$*" ]]; then
    CCACHE_DISABLE=1 NVCC_APPEND_FLAGS="$*" cmake --build "$BUILD" --target solution-$LAB >> "$OUT/build.log" 2>&1
  else
    cmake --build "$BUILD" --target solution-$LAB >> "$OUT/build.log" 2>&1
  fi
}
resources() {  # resources NAME: the kernel's registers and shared memory
  cuobjdump --dump-resource-usage "$BUILD/labs/solution-$LAB" 2>&1 | grep -A1 attend_kernel | grep -o "REG:[0-9]*\|SHARED:[0-9]*\|STACK:[0-9]*" |
    tr '\n' ' ' > "$OUT/resources-$1.txt"
  log "  $1 resources: $(cat "$OUT/resources-$1.txt")"
}
grade() {  # grade FILE: every variant of the lab, the solution, as JSON
  timeout 300 "$R" --root "$ROOT" --build-dir "$BUILD" grade $LAB --all --solutions --no-build --json \
    --score-without-prediction > "$1" 2> "${1%.json}.err"
  echo $?
}
tabulate() {  # tabulate NAME FILE: one line per variant into sweep.txt
  python3 - "$1" "$2" > "$OUT/.rows" <<'PY'
import json, sys
name, path = sys.argv[1], sys.argv[2]
text = open(path).read()
start = text.find('[')
try:
    grades = json.loads(text[start:]) if start >= 0 else []
except ValueError:
    grades = []
if not grades:
    print(f"{name:10s} no JSON (see {path[:-5]}.err)")
for g in grades:
    if not isinstance(g, dict):
        continue
    target = g.get("target", "?").split("/")[-1]
    if "fraction_of_peer" in g:
        t = g.get("time_s", {}).get("median", 0) * 1e6
        peer = g.get("peer", {}).get("median_s", 0) * 1e6
        print(f"{name:10s} {target:34s} {100 * g['fraction_of_peer']:6.1f}% of cudaMemcpy  "
              f"{t:9.1f} us (copy {peer:8.1f} us)  {'correct' if g.get('correct') else 'INCORRECT'}")
    else:
        print(f"{name:10s} {target:34s} {g.get('outcome', '?')}")
PY
  cat "$OUT/.rows" >> "$OUT/sweep.txt"
  sed 's/^/  /' "$OUT/.rows" >> "$summary"
  rm -f "$OUT/.rows"
}

# 1. Correctness: the two skeletons INCORRECT (exit 1); the solution's correctness on every
#    verify shape is in each grade below ("correct" in sweep.txt); memcheck on three odd shapes.
for v in decode_attention_b1_4k open_decode_attention_b8_ragged; do
  timeout 120 "$R" --root "$ROOT" --build-dir "$BUILD" run "$LAB/$v" --no-build > "$OUT/skeleton-$v.log" 2>&1
  rc=$?; log "skeleton $v: rc=$rc $([[ $rc == 1 ]] && echo 'INCORRECT, as it should be' || echo 'UNEXPECTED: want 1')"
done
P="$BUILD/labs/solution-$LAB"
timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 "$P" --variant decode_attention_b1_4k --mode verify \
  --atol 0.001 --rtol 0.008 --max-rel-l2 0.004 --verify-shape batch=1,context=1,shortest=1 \
  --verify-shape batch=3,context=127,shortest=1 --verify-shape batch=17,context=4097,shortest=1 --result - \
  > "$OUT/sanitizer-memcheck.log" 2>&1
log "compute-sanitizer memcheck (3 odd shapes): rc=$? (0 = clean)"
resources default

# 2. The default configuration.
: > "$OUT/sweep.txt"
rc=$(grade "$OUT/grade-default.json"); log "grade default: rc=$rc"
tabulate default "$OUT/grade-default.json"

# 3. The alternatives, each rebuilt and graded once, while the budget lasts.
while read -r name flags; do
  [[ -z "$name" ]] && continue
  if (( $(date +%s) - t0 > budget )); then log "config $name: skipped (past ${budget} s)"; continue; fi
  rebuild $flags; rc=$?
  log "config $name ($flags): build rc=$rc"
  [[ $rc != 0 ]] && continue
  resources "$name"
  rc=$(grade "$OUT/grade-$name.json"); log "grade $name: rc=$rc"
  tabulate "$name" "$OUT/grade-$name.json"
done <<< "$CONFIGS"

# 4. Back to the defaults.
rebuild; log "default objects rebuilt: rc=$?"

# 5. PyTorch's SDPA on the guided shapes, beside a copy of the same bytes.
if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  timeout 240 python3 scripts/device/decode_attention_torch.py "$OUT" > "$OUT/torch-sdpa.log" 2>&1
  log "torch SDPA: rc=$?"; sed 's/^/  /' "$OUT/torch-sdpa.log" >> "$summary"
else
  log "torch SDPA: torch with CUDA does not import here; no anchor"
fi
log "done; the per-configuration table is $OUT/sweep.txt"
