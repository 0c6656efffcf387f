#!/usr/bin/env bash
# Lab 06's FP8 rungs (issue 36) on the H200:
#   bash scripts/device/fp8_gemm.sh BUILD_DIR OUT_DIR
# Builds only what it needs (lab 06's skeletons and solutions, the roofline CLI and the FP8
# fixture lab; the GPU test binary depends on every lab, so it is run only if BUILD_DIR already
# has it, and the same fixture checks are made through the CLI either way), then:
#   1. the skeletons: `roofline run` must say INCORRECT (exit 1), never crash;
#   2. the solutions: `roofline run --solutions --json` on every verify shape (odd M and N,
#      K = 32768), with each shape's max abs and relative L2 error against the fp32 reference;
#   3. five gradings of each solution rung beside its peer (same run), `--json` each;
#   4. the no-promotion fixture at K = 32768: the unpromoted kernel INCORRECT (exit 1, "outside
#      tolerance"), the promoted one CORRECT (exit 0), with both kernels' errors; and the GPU
#      test of it (roofline_gpu_tests "[fp8]") where that binary is built;
#   5. ptxas's register and spill counts of the FP8 kernels, from the build log.
# Everything goes to OUT_DIR as text and JSON; summary.txt gathers the numbers.
set -u
BUILD=${1:?usage: fp8_gemm.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: fp8_gemm.sh BUILD_DIR OUT_DIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
if [ ! -f "$BUILD/build.ninja" ] && [ ! -f "$BUILD/Makefile" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$OUT/configure.txt" 2>&1 || { echo "configure failed"; exit 1; }
fi
BUILD=$(cd "$BUILD" && pwd)
cmake --build "$BUILD" --parallel --target lab-06-async solution-06-async roofline lab-96-fp8-no-promotion \
  > "$OUT/build.txt" 2>&1
echo "build rc=$?" | tee "$OUT/rc.txt"
R="$BUILD/roofline"
FLAGS="--root $ROOT --build-dir $BUILD"
variants="fp8_gemm_4096 fp8_gemm_8192 fp8_gemm_block_scaled_4096 fp8_gemm_block_scaled_8192"

# 1. skeletons
for v in $variants; do
  timeout 120 "$R" $FLAGS run "06-async/$v" --no-build > "$OUT/skeleton-$v.txt" 2>&1
  echo "skeleton $v rc=$? (want 1)" | tee -a "$OUT/rc.txt"
done
# 2. solutions, every verify shape
for v in $variants; do
  timeout 180 "$R" $FLAGS run "06-async/$v" --solutions --no-build --json > "$OUT/run-$v.json" 2> "$OUT/run-$v.err"
  echo "solution run $v rc=$? (want 0)" | tee -a "$OUT/rc.txt"
done
# 3. five gradings each, beside the peer
for i in 1 2 3 4 5; do
  for v in $variants; do
    timeout 180 "$R" $FLAGS grade "06-async/$v" --solutions --no-build --json > "$OUT/grade-$v-$i.json" 2>> "$OUT/grade-errors.txt"
    echo "grade $v $i rc=$?" >> "$OUT/rc.txt"
  done
done
# 4. the fixture: a course root with the real hardware/ and the fixture lab
FIXTURE_ROOT=$(mktemp -d)
ln -s "$ROOT/hardware" "$FIXTURE_ROOT/hardware"
ln -s "$ROOT/solutions/06-async/fixtures/labs" "$FIXTURE_ROOT/labs"
for v in fp8_promoted fp8_no_promotion; do
  timeout 120 "$R" --root "$FIXTURE_ROOT" --build-dir "$BUILD" run "96-fp8-no-promotion/$v" --no-build \
    > "$OUT/fixture-$v.txt" 2>&1
  echo "fixture run $v rc=$? (want $([ $v = fp8_promoted ] && echo 0 || echo 1))" | tee -a "$OUT/rc.txt"
  timeout 120 "$R" --root "$FIXTURE_ROOT" --build-dir "$BUILD" run "96-fp8-no-promotion/$v" --no-build --json \
    > "$OUT/fixture-$v.json" 2> "$OUT/fixture-$v.err"
done
grep -c "outside tolerance" "$OUT/fixture-fp8_no_promotion.txt" | sed 's/^/fixture: "outside tolerance" lines in the unpromoted run: /' | tee -a "$OUT/rc.txt"
if [ -x "$BUILD/grader/tests/gpu/roofline_gpu_tests" ]; then
  timeout 300 "$BUILD/grader/tests/gpu/roofline_gpu_tests" "[fp8]" > "$OUT/fixture-test.txt" 2>&1
  echo "fixture GPU test rc=$? (want 0)" | tee -a "$OUT/rc.txt"
else
  echo "fixture GPU test: roofline_gpu_tests not built in $BUILD (it depends on every lab); the CLI runs above check the same" | tee -a "$OUT/rc.txt"
fi
# 5. registers and spills (ptxas -v on the three FP8 kernel files, as the lab builds them)
for f in solutions/06-async/kernels/11_fp8_gemm.cu solutions/06-async/kernels/12_fp8_gemm_block_scaled.cu \
         solutions/06-async/fixtures/labs/96-fp8-no-promotion/kernels/fp8_promotion.cu; do
  echo "== $f"
  nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -Igrader/include -Ilabs/06-async \
       -I"$(dirname "$(dirname "$f")")" -c "$f" -o /dev/null -Xptxas -v 2>&1 | grep -E "registers|spill"
done > "$OUT/ptxas.txt"

python3 - "$OUT" $variants > "$OUT/summary.txt" <<'PY'
import json, pathlib, statistics, sys
out = pathlib.Path(sys.argv[1])
variants = sys.argv[2:]

def checks(j, found):
    if isinstance(j, dict):
        for k, v in j.items():
            if k == "checks" and isinstance(v, list): found.extend(v)
            else: checks(v, found)
    elif isinstance(j, list):
        for x in j: checks(x, found)
    return found

def load(path):
    try:
        text = path.read_text()
        return json.loads(text[text.find("{"):])
    except Exception:
        return None

print("Errors of the solutions against the fp32 reference, per verify shape (roofline run --json):")
for v in variants:
    j = load(out / f"run-{v}.json")
    if j is None:
        print(f"  {v}: no JSON came back"); continue
    for c in checks(j, []):
        r = c.get("report", {})
        print("  %-28s %-28s passed=%s max_abs=%.3g rel_l2=%.3g" % (v, json.dumps(c.get("shape")), r.get("passed"),
              r.get("max_abs_error", float("nan")), r.get("rel_l2", float("nan"))))
print()
print("Five gradings each (same-run fraction of the peer; variant and peer times; errors at the checked shapes):")
rates = {}
for v in variants:
    fractions, times = [], []
    for i in range(1, 6):
        j = load(out / f"grade-{v}-{i}.json")
        if j is None: continue
        f = j.get("fraction_of_peer")
        if f is not None: fractions.append(100 * f)
        errs = [(c.get("report", {}).get("max_abs_error"), c.get("report", {}).get("rel_l2")) for c in checks(j, [])]
        worst_abs = max((e[0] for e in errs if e[0] is not None), default=float("nan"))
        worst_l2 = max((e[1] for e in errs if e[1] is not None), default=float("nan"))
        peer = j.get("peer_name") or j.get("peer", {})
        print("  %-28s #%d outcome=%s fraction=%s max_abs=%.3g rel_l2=%.3g" % (v, i, j.get("outcome"),
              "%.1f%%" % (100 * f) if f is not None else "?", worst_abs, worst_l2))
        times.append(j)
    if fractions:
        print("  %-28s median %.1f%% (%.1f-%.1f) of the peer" % (v, statistics.median(fractions), min(fractions), max(fractions)))
    if times:
        for key in ("peer_name",):
            names = {json.dumps(t.get(key)) for t in times if key in t}
            if names: print("  %-28s peer: %s" % (v, ", ".join(names)))
print()
print("The fixture at K = 32768 (fp8_promoted must pass, fp8_no_promotion must not):")
for v in ("fp8_promoted", "fp8_no_promotion"):
    j = load(out / f"fixture-{v}.json")
    for c in (checks(j, []) if j else []):
        r = c.get("report", {})
        print("  %-28s passed=%s max_abs=%.3g rel_l2=%.3g %s" % (v, r.get("passed"), r.get("max_abs_error", float("nan")),
              r.get("rel_l2", float("nan")), r.get("verdict", "")))
print()
print("Raw JSON of one grading per variant is in grade-VARIANT-1.json (times, peer name, TFLOP/s).")
PY
cat "$OUT/summary.txt" "$OUT/rc.txt" "$OUT/ptxas.txt"
