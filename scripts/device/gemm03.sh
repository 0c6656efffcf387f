#!/usr/bin/env bash
# Lab 04's given WMMA GEMM (labs/04-fusion/given/gemm_with_epilogue.cuh) after its retiling,
# on the GPU machine, for the lead's batched run:
#   bash scripts/device/gemm03.sh BUILD_DIR OUT_DIR
# BUILD_DIR must hold a configured build with roofline, lab-04-fusion and solution-04-fusion
# built (the build step below only checks that they are up to date). Steps, each logged under
# OUT_DIR, none stopping the others; OUT_DIR/summary.txt gets a few lines per step (<= 40 lines):
#   1. the header's shipped tilings through its launcher (scripts/probes/given_gemm_check.cu):
#      every pair handed to the epilogue exactly once, values against an fp32 reference, at
#      K > 1024 (128 x 256 tiles, k32, 4 slots) and K <= 1024 (128 x 128, two blocks an SM);
#   2. the six GEMM variants: skeletons (bare and three kernels CORRECT: given code; fused
#      INCORRECT: its TODO) and solutions (CORRECT) on lab.yaml's verify shapes; the fused
#      solution at two odd shapes straight from the lab program;
#   3. the candidates probe (scripts/probes/given_gemm_variants.cu): every tiling (the shipped
#      two, deeper rings, 256 x 128) checked at 9 shapes, then timed at 4096^3 and
#      8192 x 8192 x 512 beside cuBLASLt, bare / fused / three kernels, interleaved, L2 flushed,
#      medians; its table with three/fused per row;
#   4. roofline grade of the six GEMM variants (solutions) against cuBLASLt in the same run, and
#      fused / three kernels per shape from each fused report's "also" line against the goals
#      (4096^3 >= 1.05x, 8192 x 8192 x 512 >= 1.4x).
# ~100 s on an H200 once built (the two probes compile in parallel, ~15 s).
set -u
BUILD=${1:?usage: gemm03.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: gemm03.sh BUILD_DIR OUT_DIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BUILD=$(cd "$BUILD" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
R="$BUILD/roofline"
FLAGS="--root $ROOT --build-dir $BUILD"
LAB=04-fusion
LOG="$OUT/predictions.yaml"  # the grading's log: never the course's
summary="$OUT/summary.txt"
: > "$summary"
log() { echo "$@" | tee -a "$summary"; }
verdict() { grep -m1 -oE "\b(INCORRECT|CORRECT|FAILED|REFUSED)\b[^.]*" "$1" | cut -c1-90; }
start=$(date +%s)
elapsed() { echo "$(( $(date +%s) - start )) s"; }
GEMM_VARIANTS="gemm_bare gemm_bias_gelu_unfused gemm_bias_gelu_fused gemm_bare_k512 gemm_bias_gelu_unfused_k512 gemm_bias_gelu_fused_k512"

cmake --build "$BUILD" --target roofline "lab-$LAB" "solution-$LAB" > "$OUT/0-build.log" 2>&1
build_rc=$?
log "== gemm03 $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1); build rc=$build_rc ($(elapsed))"
# Both probes compile while step 2 runs.
NVCC="nvcc -O3 -std=c++17 -arch=sm_90a -Igrader/include -Ilabs/04-fusion -Xptxas -v"
$NVCC -o "$OUT/given_gemm_check" scripts/probes/given_gemm_check.cu -lcublas > "$OUT/1-compile.log" 2>&1 &
check_pid=$!
$NVCC -o "$OUT/given_gemm_variants" scripts/probes/given_gemm_variants.cu -lcublas -lcublasLt \
  > "$OUT/3-compile.log" 2>&1 &
variants_pid=$!

# 2. Skeletons and solutions on the verify shapes; the fused solution at odd shapes.
log "== 2. run (verify shapes): skeleton / solution ($(elapsed))"
good=0
for v in $GEMM_VARIANTS; do
  timeout 60 "$R" $FLAGS run "$LAB/$v" --no-build > "$OUT/2-skeleton-$v.log" 2>&1
  sk=$(verdict "$OUT/2-skeleton-$v.log")
  case "$v" in *unfused*|gemm_bare*) want=CORRECT ;; *) want=INCORRECT ;; esac
  timeout 60 "$R" $FLAGS run "$LAB/$v" --solutions --no-build > "$OUT/2-solution-$v.log" 2>&1
  so=$(verdict "$OUT/2-solution-$v.log")
  if [[ "${sk%% *}" == "$want" && "${so%% *}" == CORRECT ]]; then
    good=$((good + 1))
  else
    log "  $v UNEXPECTED: skeleton '${sk}' (want $want), solution '${so}' (want CORRECT)"
  fi
done
log "  $good of 6 variants as expected (skeleton bare/unfused CORRECT, fused INCORRECT; solutions CORRECT)"
TOL="--atol 1e-2 --rtol 2e-2 --max-rel-l2 1e-2"
odd=""
for shape in "m=1152,n=640,k=544" "m=384,n=8320,k=160" "m=2176,n=2432,k=1120"; do
  f="$OUT/2-odd-fused-$shape"
  timeout 60 "$BUILD/labs/solution-$LAB" --variant gemm_bias_gelu_fused --mode verify --verify-shape "$shape" \
    --seed 7 $TOL --result "$f.json" > "$f.txt" 2>&1
  odd+=" $shape: rc $? $(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j.get('status'), *[c['report']['verdict'] for c in j.get('checks', [])])" "$f.json" 2>&1 | cut -c1-40);"
done
log "  fused solution at odd shapes:$odd"

# 1. The shipped tilings through the header's launcher (run after step 2: it waited for the compile).
wait $check_pid
log "== 1. given_gemm_check: compile rc=$? ($(elapsed))"
grep -E "spill" "$OUT/1-compile.log" | grep -v " 0 bytes spill stores" | head -2 | tee -a "$summary"
if [[ -x "$OUT/given_gemm_check" ]]; then
  timeout 120 "$OUT/given_gemm_check" > "$OUT/1-check.log" 2>&1
  log "  rc=$? (want 0): $(grep -c '^PASS' "$OUT/1-check.log") shapes PASS, $(grep -c '^FAIL' "$OUT/1-check.log") FAIL"
  cut -c1-150 "$OUT/1-check.log" | grep -E "^FAIL|pairs" | head -2 | tee -a "$summary"
  rm -f "$OUT/given_gemm_check"
fi

# 3. The candidates.
wait $variants_pid
log "== 3. given_gemm_variants: compile rc=$? ($(elapsed))"
grep -E "spill" "$OUT/3-compile.log" | grep -v " 0 bytes spill stores" | head -2 | tee -a "$summary"
if [[ -x "$OUT/given_gemm_variants" ]]; then
  timeout 150 "$OUT/given_gemm_variants" 40 > "$OUT/3-probe.log" 2>&1
  log "  rc=$? (want 0) ($(elapsed))"
  grep -E "WRONG|blocks/SM" "$OUT/3-probe.log" | grep -E "WRONG| [1-9][0-9]* bytes local| 0 blocks" | head -3 | tee -a "$summary"
  grep -E "^verify|^M=|^candidate|^[A-Za-z].* \| " "$OUT/3-probe.log" | cut -c1-100 | tee -a "$summary"
  rm -f "$OUT/given_gemm_variants"
fi

# 4. The six GEMM variants graded against cuBLASLt; fused / three kernels per shape.
log "== 4. grade --solutions ($(elapsed))"
rm -rf ".roofline/results/$LAB/solutions"
for v in $GEMM_VARIANTS; do
  timeout 90 "$R" $FLAGS grade "$LAB/$v" --solutions --no-build --log "$LOG" > "$OUT/4-grade-$v.log" 2>&1
  echo "rc=$?" >> "$OUT/4-grade-$v.log"
done
cp -r ".roofline/results/$LAB/solutions" "$OUT/results-json" 2>/dev/null
python3 - "$OUT/results-json" <<'PY' 2>&1 | tee -a "$summary"
import json, os, sys
d = sys.argv[1]
def load(v):
    try:
        return json.load(open(os.path.join(d, v + ".json")))
    except Exception as e:
        return {"error": str(e)}
for suffix, goal, label in (("", 1.05, "4096^3"), ("_k512", 1.4, "8192x8192x512")):
    parts = []
    for name in ("gemm_bare", "gemm_bias_gelu_unfused", "gemm_bias_gelu_fused"):
        j = load(name + suffix)
        try:
            parts.append(f"{name.replace('gemm_bias_gelu_', '')} {j['time_s']['median']*1e6:.1f} us "
                         f"{j['fraction_of_peer']:.3f}")
        except Exception:
            parts.append(f"{name}: {j.get('error') or j.get('outcome')}")
    print(f"  {label}: " + "; ".join(parts) + " (of cuBLASLt)")
    also = load("gemm_bias_gelu_fused" + suffix).get("also_measured")
    if also:
        print(f"    fused / three kernels = {also['speedup']:.3f}x (three {also['median_s']*1e6:.1f} us), "
              f"goal >= {goal}x: {'MET' if also['speedup'] >= goal else 'NOT MET'}")
    else:
        print(f"    no also_measured line in gemm_bias_gelu_fused{suffix}")
PY
log "== done, total $(elapsed)"
