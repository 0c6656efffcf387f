#!/usr/bin/env bash
# Lab 06's GEMM rungs graded again and again, for the spread of the same-run ratio to cuBLAS
# (the power cap moves both sides, so the ratio is what counts):
#   bash scripts/device/lab06_repeats.sh BUILD_DIR OUT_DIR [REPEATS]     (default 5)
set -u
BUILD=${1:?usage: lab06_repeats.sh BUILD_DIR OUT_DIR [REPEATS]}
OUT=${2:?usage: lab06_repeats.sh BUILD_DIR OUT_DIR [REPEATS]}
REPEATS=${3:-5}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
R="$(cd "$BUILD" && pwd)/roofline"
FLAGS="--root $(pwd) --build-dir $(cd "$BUILD" && pwd)"
summary=$OUT/summary.txt
: > "$summary"
variants="wgmma_cluster_4096 wgmma_cluster_8192 wgmma_tma_store_4096 wgmma_tma_store_8192"
for i in $(seq 1 "$REPEATS"); do
  for v in $variants; do
    timeout 60 "$R" $FLAGS grade "06-async/$v" --solutions --no-build --json > "$OUT/$v-$i.json" 2>> "$OUT/errors.txt"
    echo "$v $i rc=$?" >> "$OUT/rc.txt"
  done
done
python3 - "$OUT" $variants >> "$summary" <<'PY'
import json, pathlib, statistics, sys
out = pathlib.Path(sys.argv[1])
print("%-22s %s" % ("variant", "same-run fraction of cuBLAS per repeat; median (min-max)"))
for v in sys.argv[2:]:
    fractions = []
    for f in sorted(out.glob(v + "-*.json")):
        try: fractions.append(100 * json.loads(f.read_text())["fraction_of_peer"])
        except Exception: pass
    if fractions:
        print("%-22s %s; %.1f%% (%.1f-%.1f)" % (v, " ".join("%.1f" % x for x in fractions),
              statistics.median(fractions), min(fractions), max(fractions)))
    else:
        print("%-22s no grading came back" % v)
PY
cat "$summary"
