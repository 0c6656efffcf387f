#!/usr/bin/env bash
# Module 10's incident diagnosis on a GPU: `roofline serve` of the baseline and the four incident
# configurations (each keeps its record in .roofline/serve/NAME.json), then `roofline diagnose
# 10-production/NAME --cause C` for each of the three regimes against that record, into a log of
# its own (OUT_DIR/predictions.yaml): exactly one of the three should score the regime's 2 points,
# and it should be the answer key's (instructor/incidents/10-production.yaml; the score prints the
# key beside it). The records and the two pictures diagnose draws are copied to OUT_DIR.
# Usage: bash scripts/device/incident_diagnosis.sh BUILD_DIR OUT_DIR   (BUILD_DIR configured and built;
# about a minute of GPU time: five server runs of ~10 s each, the diagnoses on the CPU)
set -u
source "$(dirname "$0")/common.sh"
device_script_start "incident_diagnosis.sh BUILD_DIR OUT_DIR" "$@"
R="$BUILD/roofline"
INC=labs/10-production/server/incidents

log "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1)"
for name in baseline incident-a incident-b incident-c incident-d; do
  s=$(date +%s)
  "$R" --build-dir "$BUILD" serve "$INC/$name.yaml" --no-build > "$OUT/serve-$name.log" 2>&1
  log "serve $name: rc=$? in $(( $(date +%s) - s )) s: $(grep -m1 '^step ' "$OUT/serve-$name.log"); $(grep -m1 '^regime' "$OUT/serve-$name.log" | cut -c1-140)"
  [[ -f .roofline/serve/$name.json ]] || { log "  NO RECORD for $name"; continue; }
  cp ".roofline/serve/$name.json" "$OUT/"
  for cause in compute memory overhead; do
    "$R" --build-dir "$BUILD" diagnose "10-production/$name" --cause "$cause" --why "device check: every regime named once" \
      --log "$OUT/predictions.yaml" --json "$OUT/score-$name-$cause.json" > "$OUT/diagnose-$name-$cause.log" 2>&1
    rc=$?
    log "  diagnose $name as $cause: rc=$rc; $(grep -m1 '^points:' "$OUT/diagnose-$name-$cause.log"); $(grep -m1 '^answer key' "$OUT/diagnose-$name-$cause.log" | cut -c1-90)"
  done
  cp ".roofline/serve/$name-timeline.svg" ".roofline/serve/$name-roofline.svg" "$OUT/" 2>/dev/null
done
# The report's incidents section, from the same records.
"$R" --build-dir "$BUILD" report --log "$OUT/predictions.yaml" --out "$OUT/report.html" > "$OUT/report.log" 2>&1
log "report: rc=$? $(grep -c "class='step-timeline'" "$OUT/report.html" 2>/dev/null) timelines in the page"
