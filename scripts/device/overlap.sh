#!/usr/bin/env bash
# Lesson 06's overlap timeline, measured, for the lead's batched run:
#   bash scripts/device/overlap.sh BUILD_DIR OUT_DIR
# Steps, each logged under OUT_DIR, none stopping the others; OUT_DIR/summary.txt at the end:
#   1. compile scripts/probes/lab06_overlap_timeline.cu (not counted in the budget);
#   2. run it at 4096^3: OUT_DIR/overlap-timeline.csv (the stamps of blocks 0 and grid/2), and in
#      probe.log its checks (instrumented output equals the plain one; 256 elements against fp32)
#      and the stamps' cost (plain against instrumented, interleaved, medians of 25);
#   3. draw the figure from that CSV with the CPU tests' own code (if BUILD_DIR has
#      roofline_cpu_tests): the [overlap] tests on the measured data, and
#      OUT_DIR/overlap-timeline.svg. The tree's CSV and SVG are put back afterwards.
# To land it: copy OUT_DIR/overlap-timeline.csv and .svg over lessons/figures/'s and commit.
# Under 30 s on an H200 once compiled.
set -u
BUILD=${1:?usage: overlap.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: overlap.sh BUILD_DIR OUT_DIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
BUILD=$(cd "$BUILD" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
summary="$OUT/summary.txt"
: > "$summary"
log() { echo "$@" | tee -a "$summary"; }
log "== overlap timeline $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"

probe="$BUILD/lab06_overlap_timeline"
source_file=scripts/probes/lab06_overlap_timeline.cu
if [[ ! -x $probe || $source_file -nt $probe ]]; then
  nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Igrader/include -o "$probe" \
    "$source_file" grader/harness/tma.cu > "$OUT/compile.log" 2>&1
  log "compile: rc=$? (compile.log)"
else
  log "compile: up to date"
fi
grep -i -E "warning|C75" "$OUT/compile.log" 2>/dev/null | head -3 | sed 's/^/  /' | tee -a "$summary"

start=$(date +%s)
csv="$OUT/overlap-timeline.csv"
timeout 60 "$probe" 4096 > "$csv" 2> "$OUT/probe.log"
rc=$?
log "probe at 4096^3: rc=$rc in $(( $(date +%s) - start )) s (probe.log); $(grep -vc '^#' "$csv" 2>/dev/null) CSV lines"
sed 's/^/  /' "$OUT/probe.log" | head -12 | tee -a "$summary"

tests="$BUILD/grader/tests/roofline_cpu_tests"
if [[ $rc -eq 0 && -x $tests ]]; then
  figures=lessons/figures
  cp "$figures/overlap-timeline.csv" "$OUT/tree-overlap-timeline.csv.orig"
  cp "$figures/overlap-timeline.svg" "$OUT/tree-overlap-timeline.svg.orig"
  cp "$csv" "$figures/overlap-timeline.csv"
  "$tests" "[overlap]" > "$OUT/overlap-tests.log" 2>&1
  log "[overlap] CPU tests on the measured CSV: rc=$? (overlap-tests.log)"
  ROOFLINE_WRITE_FIGURES=1 "$tests" "lesson figures: the files*" > "$OUT/draw.log" 2>&1
  draw_rc=$?
  cp "$figures/overlap-timeline.svg" "$OUT/overlap-timeline.svg"
  log "figure: rc=$draw_rc -> overlap-timeline.svg (draw.log)"
  cp "$OUT/tree-overlap-timeline.csv.orig" "$figures/overlap-timeline.csv"
  cp "$OUT/tree-overlap-timeline.svg.orig" "$figures/overlap-timeline.svg"
else
  log "figure: skipped (probe rc=$rc; roofline_cpu_tests at $tests: $([[ -x $tests ]] && echo present || echo missing))"
fi
log "done in $(( $(date +%s) - start )) s after the compile"
