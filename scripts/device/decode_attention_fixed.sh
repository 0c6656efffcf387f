#!/usr/bin/env bash
# Lab 10's reference decode attention at batch 1 over growing contexts (256 to 32k positions), one
# launch each under Nsight Compute (caches flushed first): its duration, DRAM bytes and the SMs'
# active cycles. A fit of duration = fixed + bytes / rate splits what a launch costs whatever its
# length from what its bytes cost: the question is why batch 1 stays near 88% of the copy at 32k
# when batch 64 passes it.
#   bash scripts/device/decode_attention_fixed.sh BUILD_DIR OUT_DIR   (BUILD_DIR built:
#   solution-10-production; about a minute on an H200)
# Prediction (2026-12-02, before its first run): ~10 us fixed (the lab's b1_4k takes 14 us for
# 16.8 MB, b1_32k 42 us for 134 MB: both ~11 us over their bytes at 4.4 TB/s), a rate near
# 4.4 TB/s; the SMs active ~85% of the elapsed cycles at 32k.
set -u
source "$(dirname "$0")/common.sh"
device_script_start "decode_attention_fixed.sh BUILD_DIR OUT_DIR" "$@"
metrics=gpu__time_duration.sum,dram__bytes_read.sum,sm__cycles_active.avg,gpc__cycles_elapsed.max
for context in 256 1024 4096 8192 16384 32768; do
  timeout 60 ncu --profile-from-start off --clock-control none --metrics $metrics --csv --print-units base \
    "$BUILD/labs/solution-10-production" --variant decode_attention_b1_4k --mode once \
    --timed-shape batch=1,context=$context,shortest=$context --result - > "$OUT/ncu-$context.csv" 2> "$OUT/ncu-$context.err"
  echo "$context rc=$?" >> "$summary"
done
python3 - "$OUT" <<'PY' | tee -a "$summary"
import csv, glob, os, sys
points = []
for path in glob.glob(os.path.join(sys.argv[1], "ncu-*.csv")):
    context = int(os.path.basename(path)[4:-4])
    lines = [l for l in open(path) if l.startswith('"')]
    values = {}
    for row in csv.DictReader(lines):
        if "attend_kernel" in row.get("Kernel Name", ""):
            values[row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
    if values:
        points.append((context, values))
points.sort()
for context, v in points:
    t = v.get("gpu__time_duration.sum", 0) * 1e-9
    b = v.get("dram__bytes_read.sum", 0)
    active = v.get("sm__cycles_active.avg", 0) / max(1, v.get("gpc__cycles_elapsed.max", 1))
    print(f"context {context:6d}: {t*1e6:8.2f} us, {b/1e6:8.1f} MB read, {b/t/1e12 if t else 0:5.2f} TB/s, SMs active {100*active:5.1f}%")
if len(points) >= 2:
    xs = [v["dram__bytes_read.sum"] for _, v in points]; ys = [v["gpu__time_duration.sum"] * 1e-9 for _, v in points]
    n = len(xs); mx = sum(xs) / n; my = sum(ys) / n
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    print(f"fit: {1e6 * (my - slope * mx):.2f} us fixed + bytes at {1 / slope / 1e12:.2f} TB/s")
PY
