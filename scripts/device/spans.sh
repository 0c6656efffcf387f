#!/usr/bin/env bash
# The decode server's timeline from each op's own start and end (labs/10-production/server/: an
# event before and one after each op of the instrumented step): `roofline serve` of incident B
# (batch 12, no CUDA graph for that batch, one request at a time) and of the baseline at batch 1
# (a graphed batch, though its instrumented step is eager like every one), each with its JSON, the
# timeline SVG and, for incident B, the record serve keeps; then the gap share of each.
# Usage: bash scripts/device/spans.sh BUILD_DIR OUT_DIR   (BUILD_DIR configured and built: roofline,
# roofline-decode-server at least). About 1 minute on an H200. OUT_DIR/summary.txt has the lines.
set -u
source "$(dirname "$0")/common.sh"
device_script_start "spans.sh BUILD_DIR OUT_DIR" "$@"
R="$BUILD/roofline"
INC=labs/10-production/server/incidents

log "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1)"
[[ -x $R ]] || log "MISSING: $R (build it first)"

serve() {  # serve NAME CONFIG ARGS...
  local name=$1 config=$2; shift 2
  local s=$(date +%s)
  timeout 240 "$R" --build-dir "$BUILD" serve "$config" --no-build --json "$OUT/$name.json" \
      --timeline "$OUT/$name-timeline.svg" "$@" > "$OUT/serve-$name.log" 2>&1
  log "serve $name: rc=$? in $(( $(date +%s) - s )) s"
  grep -E '^step |^gaps: |^one step alone|^regime: |\(gaps\)' "$OUT/serve-$name.log" | tee -a "$summary"
  # The spans in figures: how many, how many gaps over 5 us, the largest gaps and the op after each.
  python3 - "$OUT/$name.json" <<'PY' 2>&1 | tee -a "$summary"
import json, sys
r = json.load(open(sys.argv[1]))
ev, step = r.get("events", []), r["instrumented_step_s"]
if not ev:
    print("  no events in", sys.argv[1]); sys.exit()
gaps, last = [], 0.0
for e in ev:
    gaps.append((e["start_s"] - last, e["name"]))
    last = e["end_s"]
gaps.append((step - last, "(end)"))
total = sum(max(g, 0) for g, _ in gaps)
big = [g for g in gaps if g[0] > 5e-6]
sizes = sorted(g for g, _ in gaps)
print(f"  {len(ev)} spans; gaps {total*1e3:.3f} ms of {step*1e3:.3f} ms ({100*total/step:.1f}%); "
      f"median gap {sizes[len(sizes)//2]*1e6:.2f} us; {len(big)} over 5 us; timed step {r['step_s']*1e3:.3f} ms, "
      f"host enqueue of a lone step {r['host_enqueue_s']*1e3:.3f} ms against {r['single_step_s']*1e3:.3f} ms")
print("  largest gaps (us, the op after):", ", ".join(f"{g*1e6:.1f} {n}" for g, n in sorted(gaps, reverse=True)[:5]))
PY
}

serve b $INC/incident-b.yaml
cp .roofline/serve/incident-b.json "$OUT/record-incident-b.json" 2>/dev/null || log "no record .roofline/serve/incident-b.json"
# --batch makes it another configuration, so serve keeps no record of it: the JSON and the SVG are here.
serve baseline-b1 $INC/baseline.yaml --batch 1
ls -l "$OUT" >> "$summary"
