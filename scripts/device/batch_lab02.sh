#!/usr/bin/env bash
# Lab 02 through `roofline batch` on a GPU, in the sandbox: a class of two (the given kernels
# as handed out, and the reference fixes), so that the batch profiles the course's kernels
# once and each submission before grading, with ncu inside bubblewrap. Each submission carries a
# predictions.yaml (a diagnosis of the tail kernel and a time-and-bytes prediction), since the
# batch profiles only a submission that has a log: that is the path that starts ncu on a
# submission's own lab program inside the sandbox.
#   bash scripts/device/batch_lab02.sh BUILD_DIR OUT_DIR       (ROOFLINE_BWRAP: the bwrap binary)
set -u
BUILD=$(cd "${1:?usage: batch_lab02.sh BUILD_DIR OUT_DIR}" && pwd)
OUT=${2:?usage: batch_lab02.sh BUILD_DIR OUT_DIR}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
class=$(mktemp -d)
mkdir -p "$class/given/kernels" "$class/fixed/kernels"
cp labs/02-profile/kernels/*.cu "$class/given/kernels/"
cp solutions/02-profile/kernels/*.cu "$class/fixed/kernels/"
roofline=("$BUILD/roofline" --root "$(pwd)" --build-dir "$BUILD")
for s in given fixed; do
  flag=(); [[ $s == fixed ]] && flag=(--solutions)
  "${roofline[@]}" diagnose 02-profile/fma_tail_fp32 --log "$class/$s/predictions.yaml" --cause tail_effect \
    --why "133 tiles, one block per SM: most SMs idle half the time" > "$OUT/log-$s.txt" 2>&1
  time_us=480; [[ $s == fixed ]] && time_us=235
  "${roofline[@]}" predict 02-profile/fma_tail_fp32 "${flag[@]}" --log "$class/$s/predictions.yaml" --time-us $time_us \
    --regime compute --bytes 8.6e7 --why "x read once, y written once less the ~20 MB the L2 still holds at the end" >> "$OUT/log-$s.txt" 2>&1
done
began=$(date +%s)
"$BUILD/roofline" --root "$(pwd)" --build-dir "$BUILD" batch 02-profile --submissions "$class" \
  --out "$class/out" > "$OUT/batch.txt" 2>&1
rc=$?
{
  echo "batch 02-profile (given, fixed): rc=$rc in $(( $(date +%s) - began )) s"
  grep -E "^sandbox|^profiles|ncu|profil" "$OUT/batch.txt" | head -8
  for s in given fixed; do echo "log $s: $(grep -c 'variant:' "$class/$s/predictions.yaml" 2>/dev/null) entries"; done
  cut -d, -f1-9 "$class/out/gradebook.csv"
  for s in given fixed; do
    python3 - "$class/out/submissions/$s/result.json" "$s" <<'PY'
import json, sys
try: r = json.load(open(sys.argv[1]))
except Exception as e: print(sys.argv[2], "no result:", e); sys.exit()
for v in r.get("variants", []):
    print("  %-6s %-28s %-14s %s" % (sys.argv[2], v.get("name"), v.get("outcome"), str(v.get("verdict", ""))[:120]))
print("  %-6s prediction points %s, reason: %s" % (sys.argv[2], r.get("prediction"), str(r.get("reason", ""))[:160]))
PY
  done
} > "$OUT/summary.txt"
cp "$class/out/gradebook.csv" "$OUT/" 2>/dev/null
tar -czf "$OUT/batch-out.tar.gz" -C "$class" out given/predictions.yaml fixed/predictions.yaml 2>/dev/null
cat "$OUT/summary.txt"
