#!/usr/bin/env bash
# Where lab 10's reference spends its ~9 us fixed cost at batch 1: the kernel rebuilt with a part
# taken out (a patched copy of decode_attention_ring.cuh, restored afterwards; the results of a
# patched kernel are wrong, only its time is read), one launch each under ncu at 256, 4,096 and
# 32,768 positions. Parts: no_merge (each block writes its record and leaves: no fence, no arrival
# count, no last-block merge), no_bytes (no tile requested or read: the launch, the queries and the
# merge), empty (every block returns at once: the launch alone).
#   bash scripts/device/decode_attention_ablate.sh BUILD_DIR OUT_DIR   (BUILD_DIR built:
#   solution-10-production; about two minutes on an H200)
# Prediction (2026-12-02, before its first run): at 256 positions (9.0 us as shipped) the empty
# launch ~3 us, no_bytes ~6 us, no_merge ~6 us: the merge's chain (fence, count, the last block's
# L2 reads) and the first tiles' DRAM round trip about 3 us each.
set -u
source "$(dirname "$0")/common.sh"
device_script_start "decode_attention_ablate.sh BUILD_DIR OUT_DIR" "$@"
FILE=solutions/10-production/decode_attention_ring.cuh
cp "$FILE" "$OUT/ring.orig"
rebuild() {
  find "$BUILD" -path "*solution-10-production-kernels.dir*" -name '*.cu.o' -delete
  CCACHE_DISABLE=1 cmake --build "$BUILD" --target solution-10-production > "$OUT/build-$1.log" 2>&1
}
measure() {  # measure NAME
  for context in 256 4096 32768; do
    ncu --profile-from-start off --clock-control none --metrics gpu__time_duration.sum --csv --print-units base \
      "$BUILD/labs/solution-10-production" --variant decode_attention_b1_4k --mode once \
      --timed-shape batch=1,context=$context,shortest=$context --result /dev/null 2> /dev/null |
      python3 -c "
import csv, sys
rows = [r for r in csv.DictReader(l for l in sys.stdin if l.startswith('\"')) if 'attend_kernel' in r['Kernel Name']]
print(f'$1 context $context: ' + (f\"{float(rows[0]['Metric Value'].replace(',', '')) / 1e3:.2f} us\" if rows else 'no row'))
" | tee -a "$summary"
  done
}
patch_and_measure() {  # NAME SED-EXPRESSION
  cp "$OUT/ring.orig" "$FILE"
  [[ -n $2 ]] && sed -i "$2" "$FILE"
  rebuild "$1" || { log "$1: build failed"; return; }
  measure "$1"
}
patch_and_measure shipped ""
patch_and_measure no_merge 's/^    if (alone) return;$/    return;/'
patch_and_measure no_bytes 's/^    const int tiles = (count + kTile - 1) \/ kTile;$/    const int tiles = 0;/'
patch_and_measure empty 's/^    if (first >= length) return;.*$/    return;/'
cp "$OUT/ring.orig" "$FILE"
rebuild restored && log "restored and rebuilt"
