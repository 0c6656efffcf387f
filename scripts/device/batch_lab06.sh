#!/usr/bin/env bash
# Lab 06 through `roofline batch` on a GPU, in the sandbox: a class of two (the given kernels
# as handed out, and the reference fixes), so that the batch profiles the course's kernels
# once and each submission before grading, with ncu inside bubblewrap.
#   bash scripts/device/batch_lab06.sh BUILD_DIR OUT_DIR       (ROOFLINE_BWRAP: the bwrap binary)
set -u
BUILD=$(cd "${1:?usage: batch_lab06.sh BUILD_DIR OUT_DIR}" && pwd)
OUT=${2:?usage: batch_lab06.sh BUILD_DIR OUT_DIR}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
class=$(mktemp -d)
mkdir -p "$class/given/kernels" "$class/fixed/kernels"
cp labs/06-profile/kernels/*.cu "$class/given/kernels/"
cp solutions/06-profile/kernels/*.cu "$class/fixed/kernels/"
began=$(date +%s)
"$BUILD/roofline" --root "$(pwd)" --build-dir "$BUILD" batch 06-profile --submissions "$class" \
  --out "$class/out" > "$OUT/batch.txt" 2>&1
rc=$?
{
  echo "batch 06-profile (given, fixed): rc=$rc in $(( $(date +%s) - began )) s"
  grep -E "^sandbox|^profiles|ncu|profil" "$OUT/batch.txt" | head -8
  cut -d, -f1-9 "$class/out/gradebook.csv"
  for s in given fixed; do
    python3 - "$class/out/submissions/$s/result.json" "$s" <<'PY'
import json, sys
try: r = json.load(open(sys.argv[1]))
except Exception as e: print(sys.argv[2], "no result:", e); sys.exit()
for v in r.get("variants", []):
    print("  %-6s %-28s %-14s %s" % (sys.argv[2], v.get("name"), v.get("outcome"), str(v.get("verdict", ""))[:120]))
PY
  done
} > "$OUT/summary.txt"
cp "$class/out/gradebook.csv" "$OUT/" 2>/dev/null
cat "$OUT/summary.txt"
