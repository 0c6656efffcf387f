#!/usr/bin/env bash
# Lab 04's second GEMM shape (M = N = 8192, K = 512) on the GPU machine, about 40 s on an H200
# once built:
#   1. the skeletons (labs/) of the six GEMM variants: the given bare GEMM and three kernels
#      CORRECT, the fused epilogue INCORRECT (its TODO stores A B without bias or GELU);
#   2. the reference solutions of the same six verified on the lab's GEMM shapes (also checks
#      cuBLASLt and the grader's copy of the given three kernels against the reference once),
#      and the fused solution at two odd shapes (a K tail, a short last block column);
#   3. grade 04-fusion --all --solutions: every variant against its peer in the same run; each
#      gemm_bias_gelu report times the given three kernels beside it (the "also" line);
#   4. per shape: fused against three kernels, both from the "also" line (interleaved, same run)
#      and from the two variants' own times in step 3, against the goals (4096^3: >= 1.05x;
#      8192 x 8192 x 512: >= 1.4x), beside the prediction in labs/04-fusion/README.md.
# RUN_SANITIZER=1 adds compute-sanitizer memcheck on the fused solution and the grader's copy
# at a small shape (~20 s more).
# Usage: bash scripts/device/fusion2.sh BUILD_DIR OUT_DIR
# One step failing never stops the next; each writes its log under OUT_DIR, and
# OUT_DIR/summary.txt holds a few lines per step.
set -u
BUILD=${1:?usage: fusion2.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: fusion2.sh BUILD_DIR OUT_DIR}
mkdir -p "$OUT"
BUILD=$(cd "$BUILD" 2>/dev/null && pwd || echo "$BUILD")
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
R="$BUILD/roofline"
LAB=04-fusion
summary="$OUT/summary.txt"
: > "$summary"
log() { echo "$@" | tee -a "$summary"; }
start=$(date +%s)
elapsed() { echo "$(( $(date +%s) - start )) s"; }
GEMM_VARIANTS="gemm_bare gemm_bias_gelu_unfused gemm_bias_gelu_fused gemm_bare_k512 gemm_bias_gelu_unfused_k512 gemm_bias_gelu_fused_k512"

log "== fusion2.sh $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader 2>/dev/null)"
cmake --build "$BUILD" --target roofline "lab-$LAB" "solution-$LAB" > "$OUT/build.log" 2>&1
log "build: rc=$? ($(elapsed))"

# 1. Skeletons: rungs 5 and 6 are given code, rung 7 is the student's.
log "== skeletons (labs/): bare and unfused CORRECT (given), fused INCORRECT"
for v in $GEMM_VARIANTS; do
  timeout 60 "$R" --build-dir "$BUILD" run "$LAB/$v" --no-build > "$OUT/skeleton-$v.txt" 2>&1
  rc=$?
  verdict=$(grep -oE "\b(INCORRECT|CORRECT)\b" "$OUT/skeleton-$v.txt" | head -1)
  case "$v" in *fused*) [[ "$v" == *unfused* ]] && want=CORRECT || want=INCORRECT ;; *) want=CORRECT ;; esac
  log "  $v: ${verdict:-no verdict} (rc $rc) $([[ "$verdict" == "$want" ]] && echo ok || echo "UNEXPECTED, want $want")"
done

# 2. Solutions on the verify shapes, then the fused epilogue at odd shapes straight from the lab program.
log "== solutions: run --solutions (GEMM verify shapes), then odd shapes ($(elapsed))"
for v in $GEMM_VARIANTS; do
  timeout 60 "$R" --build-dir "$BUILD" run "$LAB/$v" --solutions --no-build > "$OUT/solution-run-$v.txt" 2>&1
  rc=$?
  log "  $v: $(grep -oE "\b(INCORRECT|CORRECT)\b[^.]*" "$OUT/solution-run-$v.txt" | head -1) (rc $rc)"
  grep -iE "disagree|error" "$OUT/solution-run-$v.txt" | head -2 | sed 's/^/    /' | tee -a "$summary"
done
tol="--atol 1e-2 --rtol 2e-2 --max-rel-l2 1e-2"
for shape in "m=1152,n=640,k=544" "m=384,n=8320,k=160"; do
  f="$OUT/odd-fused-$shape"
  timeout 60 "$BUILD/labs/solution-$LAB" --variant gemm_bias_gelu_fused_k512 --mode verify --verify-shape "$shape" \
    --seed 7 $tol --result "$f.json" > "$f.txt" 2>&1
  log "  fused at $shape: rc $? $(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j.get('status'), [c['report']['verdict'] for c in j.get('checks', [])])" "$f.json" 2>&1 | cut -c1-200)"
done

if [[ "${RUN_SANITIZER:-0}" == 1 ]] && command -v compute-sanitizer > /dev/null; then
  log "== compute-sanitizer memcheck: the fused solution, then (inside verify) the grader's copy of the three kernels"
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 99 "$BUILD/labs/solution-$LAB" \
    --variant gemm_bias_gelu_fused --mode verify --verify-shape "m=256,n=384,k=96" --seed 7 $tol \
    --result "$OUT/sanitizer.json" > "$OUT/sanitizer.txt" 2>&1
  log "  rc $? ($(grep -E "ERROR SUMMARY" "$OUT/sanitizer.txt" | tail -1))"
fi

# 3. Every variant against its peer, the given three kernels timed beside each gemm_bias_gelu one.
log "== grade $LAB --all --solutions ($(elapsed))"
rm -rf ".roofline/results/$LAB/solutions"
timeout 150 "$R" --build-dir "$BUILD" grade "$LAB" --all --solutions --no-build > "$OUT/grade-all.txt" 2>&1
log "grade rc=$? ($(elapsed))"
grep -A16 "^variant " "$OUT/grade-all.txt" | tee -a "$summary"
grep -E "^[0-9]{2}-fusion/gemm|  also " "$OUT/grade-all.txt" > "$OUT/also-lines.txt"
cp -r ".roofline/results/$LAB/solutions" "$OUT/results-json" 2>/dev/null

# 4. Fused against three kernels, per shape.
log "== fused / three kernels, per shape (goal; prediction from the README)"
python3 - "$OUT/results-json" <<'PY' 2>&1 | tee -a "$summary"
import json, os, sys
d = sys.argv[1]
def load(v):
    try:
        return json.load(open(os.path.join(d, v + ".json")))
    except Exception as e:
        return {"error": str(e)}
for suffix, goal, predicted in [("", 1.05, "~1.05 (WMMA loop, run 30: 1.045)"), ("_k512", 1.4, "~1.34 (1.30-1.42)")]:
    fused, unfused, bare = (load(f"gemm_bias_gelu_fused{suffix}"), load(f"gemm_bias_gelu_unfused{suffix}"),
                            load(f"gemm_bare{suffix}"))
    label = "4096^3" if not suffix else "8192x8192x512"
    also = fused.get("also_measured")
    if not also:
        print(f"  {label}: no also_measured in the fused grade ({fused.get('error') or fused.get('outcome')})")
        continue
    line = f"  {label}: fused/three kernels = {also['speedup']:.3f}x interleaved (three kernels {also['median_s']*1e6:.1f} us)"
    try:
        t = {k: v["time_s"]["median"] for k, v in (("fused", fused), ("unfused", unfused), ("bare", bare))}
        line += (f"; own gradings: fused {t['fused']*1e6:.1f}, unfused {t['unfused']*1e6:.1f}, bare {t['bare']*1e6:.1f} us"
                 f" -> {t['unfused']/t['fused']:.3f}x; fused/bare {t['fused']/t['bare']:.3f}x")
    except Exception as e:
        line += f"; own gradings unreadable ({e})"
    print(line)
    print(f"    goal >= {goal}x: {'MET' if also['speedup'] >= goal else 'NOT MET'}; predicted {predicted}")
    for name, j in (("fused", fused), ("unfused", unfused), ("bare", bare)):
        try:
            extra = f", also {j['also_measured']['speedup']:.3f}x" if "also_measured" in j else ""
            print(f"    {name}{suffix}: {j['fraction_of_peer']:.3f} of cuBLASLt ({j['peer']['median_s']*1e6:.1f} us), "
                  f"{j['points']['total']:.1f} points, clock {j['sm_clock_mhz']['median']:.0f} MHz{extra}")
        except Exception as e:
            print(f"    {name}{suffix}: fields unreadable ({e}); see grade-all.txt")
PY
log "total $(elapsed)"
