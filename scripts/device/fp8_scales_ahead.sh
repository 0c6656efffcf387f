#!/usr/bin/env bash
# Lab 06's block-scaled FP8 rung: the reference beside the same kernel with each K block's scales
# loaded two K blocks before their promotion instead of one (ROOFLINE_FP8_SCALES_AHEAD, the fixture
# lab 95-fp8-sweep's `ahead_` variants), three gradings each beside cuBLASLt, with the per-tensor
# rung in the same passes (the block-scaled rate's yardstick). VARIANTS="..." grades others of the
# fixture.
#   bash scripts/device/fp8_scales_ahead.sh BUILD_DIR OUT_DIR   (BUILD_DIR built: roofline,
#   roofline-judge, lab-95-fp8-sweep; about a minute on an H200)
# Prediction (2026-12-02, before its first run): run 106 put the block-scaled reference at 87.7% /
# 85.3% of the per-tensor rate (4096^3 / 8192^3), at the same SM clock at 4096^3. What it does
# beyond the per-tensor rung per K block is three cached loads, two multiplies and FFMAs for
# FADDs; only the loads can wait. They are issued one K block (~600 cycles at full rate) before
# their use, while the TMA unit streams 24 KB a K block through the same L2; if their round trip
# is longer than that, the consumer waits at each promotion. Two K blocks ahead: 92-95% of the
# per-tensor rate if that is the cause; within the spread of the reference if it is not.
set -u
source "$(dirname "$0")/common.sh"
device_script_start "fp8_scales_ahead.sh BUILD_DIR OUT_DIR" "$@"
fr=$(fixture_root "$ROOT/solutions/06-async/fixtures/labs")
VARIANTS=${VARIANTS:-"dbuf_mc_fp8_gemm dbuf_mc_fp8_gemm_block_scaled ahead_fp8_gemm_block_scaled"}
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
        print(line)
PY
rm -rf "$fr"
