#!/usr/bin/env bash
# Module 10's decode server on a GPU (labs/10-production/server/): the reference check at odd
# batches and short contexts (the graph path at batch 1, the per-request path at 3 and 17, the
# CUDA-core LM head of a vocabulary of 128,258), then `roofline serve` at batch 1 and 64 (4k
# context, with the graph), the four incident configurations and the fixes that exist (a graph
# for batch 12; the vocabulary padded to 64), each with its floor, fraction and regime.
# Usage: bash scripts/device/decode_server.sh BUILD_DIR OUT_DIR     (~2 minutes on an H200 after the build)
# One failing step never stops the others; each writes a log under OUT_DIR (and its report's JSON),
# and OUT_DIR/summary.txt gets one line per step.
set -u
BUILD=${1:?usage: decode_server.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: decode_server.sh BUILD_DIR OUT_DIR}
mkdir -p "$OUT"
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
R="$BUILD/roofline"
SERVER="$BUILD/labs/roofline-decode-server"
INC=labs/10-production/server/incidents
summary="$OUT/summary.txt"
: > "$summary"
log() { echo "$@" | tee -a "$summary"; }

log "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>&1)"
s=$(date +%s)
cmake --build "$BUILD" --target roofline roofline-decode-server > "$OUT/build.log" 2>&1
log "build: rc=$? in $(( $(date +%s) - s )) s"
# The roofs the report uses: the measured copy rate where this GPU has one.
s=$(date +%s)
"$R" --build-dir "$BUILD" ceilings > "$OUT/ceilings.log" 2>&1
log "ceilings: rc=$? in $(( $(date +%s) - s )) s: $(grep -i -m1 'memcpy' "$OUT/ceilings.log")"

# The fixes as configurations of their own (written here, so the incident files stay as students get them).
sed 's/^pad_vocab_to: 1$/pad_vocab_to: 64/' $INC/incident-d.yaml > "$OUT/incident-d-fixed.yaml"
sed 's/^graph_batch_sizes: \[1, 2, 4, 8, 16,/graph_batch_sizes: [1, 2, 4, 8, 12, 16,/' $INC/incident-b.yaml > "$OUT/incident-b-fixed.yaml"

# The reference check: exit 0 and "ok" on every checked step (the tolerance's derivation is in reference.cuh).
check() {  # check NAME CONFIG ARGS...
  local name=$1 config=$2; shift 2
  local s=$(date +%s)
  "$SERVER" --config "$config" --steps 1 --check 3 "$@" > "$OUT/check-$name.log" 2>&1
  local rc=$?
  log "check $name: rc=$rc in $(( $(date +%s) - s )) s $([[ $rc == 0 ]] && echo ok || echo 'UNEXPECTED: want 0'): $(grep '^check step' "$OUT/check-$name.log" | tail -1)"
}
check b1-c100-graph $INC/baseline.yaml --batch 1 --context 100
check b3-c257-per-request $INC/baseline.yaml --batch 3 --context 257
check b17-c1000-per-request $INC/baseline.yaml --batch 17 --context 1000
check b16-c33-graph $INC/baseline.yaml --batch 16 --context 33
check b5-c64-vocab128258 $INC/incident-d.yaml --batch 5 --context 64
check b4-c0-padded-vocab "$OUT/incident-d-fixed.yaml" --batch 4 --context 0
check b2-c32768 $INC/baseline.yaml --batch 2 --context 32768

# The measurements: roofline serve's report of each (text and JSON).
serve() {  # serve NAME CONFIG ARGS...
  local name=$1 config=$2; shift 2
  local s=$(date +%s)
  "$R" --build-dir "$BUILD" serve "$config" --no-build --json "$OUT/serve-$name.json" "$@" > "$OUT/serve-$name.log" 2>&1
  local rc=$?
  log "serve $name: rc=$rc in $(( $(date +%s) - s )) s: $(grep -m1 '^step ' "$OUT/serve-$name.log"); $(grep -m1 '^fraction' "$OUT/serve-$name.log"); $(grep -m1 '^regime' "$OUT/serve-$name.log" | cut -c1-160)"
}
serve b1-c4096 $INC/baseline.yaml --batch 1
serve baseline $INC/baseline.yaml
serve baseline-no-graph $INC/baseline.yaml --no-graph
serve incident-a $INC/incident-a.yaml
serve incident-b $INC/incident-b.yaml
serve incident-c $INC/incident-c.yaml
serve incident-d $INC/incident-d.yaml
serve incident-b-fixed "$OUT/incident-b-fixed.yaml"
serve incident-d-fixed "$OUT/incident-d-fixed.yaml"
log "== done $(date -u +%FT%TZ)"
