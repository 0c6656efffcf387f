#!/usr/bin/env bash
# Lab 10's reference decode attention graded five times (every variant, cudaMemcpy of the same bytes
# timed in each grading): the median and spread a debrief reports.
#   bash scripts/device/decode_attention_x5.sh BUILD_DIR OUT_DIR   (BUILD_DIR built: roofline,
#   roofline-judge, solution-10-production; about a minute on an H200)
set -u
source "$(dirname "$0")/common.sh"
device_script_start "decode_attention_x5.sh BUILD_DIR OUT_DIR" "$@"
for pass in 1 2 3 4 5; do
  timeout 100 "$BUILD/roofline" --root "$ROOT" --build-dir "$BUILD" grade 10-production --all --solutions --no-build \
    --json --score-without-prediction > "$OUT/grade-$pass.json" 2> "$OUT/grade-$pass.err"
  log "pass $pass rc=$?"
done
python3 - "$OUT" <<'PY' | tee -a "$summary"
import glob, json, os, statistics, sys
rows = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "grade-*.json"))):
    text = open(path).read()
    try:
        grades = json.loads(text[text.index("["):])
    except ValueError:
        print(f"{os.path.basename(path)}: no JSON"); continue
    for g in grades:
        t = g.get("target", "?").split("/")[-1]
        if "fraction_of_peer" in g:
            rows.setdefault(t, []).append((g.get("outcome"), 100 * g["fraction_of_peer"], g["time_s"]["median"] * 1e6,
                                           g.get("peer", {}).get("median_s", 0) * 1e6))
        else:
            rows.setdefault(t, []).append((g.get("outcome"), None, None, None))
for t, r in rows.items():
    timed = [x for x in r if x[1] is not None]
    if not timed:
        print(f"{t}: {[x[0] for x in r]}"); continue
    fr = [x[1] for x in timed]
    print(f"{t}: {[x[0] for x in r]}, median {statistics.median(fr):.1f}% of cudaMemcpy (spread {min(fr):.1f}-{max(fr):.1f}), "
          f"{statistics.median(x[2] for x in timed):.1f} us, copy {statistics.median(x[3] for x in timed):.1f} us")
PY
