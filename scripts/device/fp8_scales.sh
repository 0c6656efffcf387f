#!/usr/bin/env bash
# Lab 06's FP8 rungs beside cuBLASLt, three gradings each: the reference (fixture lab 95-fp8-sweep's
# dbuf_mc_ variants, per-tensor and block-scaled) and its `quad_` variants (clusters of 2 x 2 tiles,
# Bt's tile multicast down each column as A's is along each row), with each block-scaled rate as a
# fraction of its per-tensor rate. VARIANTS="..." grades others of the fixture.
#   bash scripts/device/fp8_scales.sh BUILD_DIR OUT_DIR   (BUILD_DIR built: roofline, roofline-judge,
#   lab-95-fp8-sweep; about a minute on an H200)
# Prediction, written before run 104: the run-101 profile put 18% of the block-scaled rung's warp
# samples on a long scoreboard at the scale loads, before each K block's wgmmas are issued. Moved
# to the promotion (then the `late_` variants, now the reference), that wait falls behind a K
# block of tensor work: from 79-83% of the per-tensor rate to 90-95%. Run 104: 94.8% and 88.2%.
# Prediction for quad_ (2026-12-02, before its first run): the multicast of A took the per-tensor
# rung from 1,115 to 1,335 TFLOP/s at 8192^3 (run 97) by cutting a block's L2 reads per K block
# from 32 to 24 KB; the 2 x 2 cluster cuts them to 16 KB. If L2 to shared memory were the only
# limit that would be 1.5x; the promotion's adds, the barrier round trips and the stores stay, and
# a cluster of four may leave a few SMs idle: 1,450-1,550 TFLOP/s at 8192^3 (91-97% of cuBLASLt),
# 1,300-1,400 at 4096^3. Run 104: 1,019 / 1,169, slower than the reference's 1,088 / 1,219 in the
# same passes, both with the cluster rank read anew (volatile) at every use in the consumers' loop;
# run 105 measures both with the rank read once.
set -u
source "$(dirname "$0")/common.sh"
device_script_start "fp8_scales.sh BUILD_DIR OUT_DIR" "$@"
fr=$(fixture_root "$ROOT/solutions/06-async/fixtures/labs")
VARIANTS=${VARIANTS:-"dbuf_mc_fp8_gemm dbuf_mc_fp8_gemm_block_scaled quad_fp8_gemm quad_fp8_gemm_block_scaled"}
for pass in 1 2 3; do
  for size in 4096 8192; do
    for v in $VARIANTS; do
      name=${v}_$size
      timeout 60 "$BUILD/roofline" --root "$fr" --build-dir "$BUILD" grade "95-fp8-sweep/$name" --no-build --json \
        --score-without-prediction > "$OUT/$name-$pass.json" 2> "$OUT/$name-$pass.err"
      echo "pass $pass $name rc=$?" >> "$summary"
    done
  done
done
python3 - "$OUT" $VARIANTS <<'PY' | tee -a "$summary"
import json, glob, os, statistics, sys
out = sys.argv[1]
rates = {}
for f in glob.glob(os.path.join(out, "*.json")):
    name = os.path.basename(f).rsplit("-", 1)[0]
    try:
        text = open(f).read(); g = json.loads(text[text.index("{"):])
    except Exception:
        continue
    m = int(name.rsplit("_", 1)[1])
    try:
        rates.setdefault(name, []).append((g.get("outcome"), 2 * m**3 / g["time_s"]["median"] / 1e12, 100 * g["fraction_of_peer"]))
    except (KeyError, TypeError):  # not timed (an incorrect or refused grading): its outcome, no rate
        print(f"{name}: {g.get('outcome')} -- {str(g.get('verdict'))[:300]}")
for size in (4096, 8192):
    pt = rates.get(f"dbuf_mc_fp8_gemm_{size}", [])
    pt_rate = statistics.median(r for _, r, _ in pt) if pt else None
    for v in sys.argv[2:]:
        rows = rates.get(f"{v}_{size}", [])
        if not rows:
            print(f"{v}_{size}: no grading"); continue
        rate = statistics.median(r for _, r, _ in rows)
        line = f"{v}_{size}: {[o for o, _, _ in rows]}, {rate:.0f} TFLOP/s, {statistics.median(p for _, _, p in rows):.1f}% of cuBLASLt"
        if pt_rate and "block" in v: line += f", {100 * rate / pt_rate:.1f}% of the per-tensor rate"
        quad_pt = rates.get(f"quad_fp8_gemm_{size}", [])
        if quad_pt and v.startswith("quad_") and "block" in v:
            line += f", {100 * rate / statistics.median(r for _, r, _ in quad_pt):.1f}% of quad's per-tensor rate"
        print(line)
PY
rm -rf "$fr"
