#!/usr/bin/env bash
# The decode server's fixes on a GPU (labs/10-production/server/): the reference check at odd
# batches and contexts with the plain attention, the lab's attention (the solution's, and the
# skeleton's, which must be named as off, not crash the server), the fp8 cache (the course's kernel's,
# and kernels.cu's plain one: the student edition's server, --plain-kernels) and the cuBLASLt
# path; then `roofline serve` at batch 1 (the fused small-batch step, and without it) and 64, each
# incident before and after its fix (instructor/incidents/10-production-fixes/), each with its
# floor, fraction and regime (and the rule that read it).
# Usage: bash scripts/device/server_fixes.sh BUILD_DIR OUT_DIR   (BUILD_DIR configured and built: all
# targets, or at least roofline, roofline-decode-server and roofline-decode-server-solution)
# One failing step never stops the others; each writes a log under OUT_DIR (and serve's JSON), and
# OUT_DIR/summary.txt gets one line per step. About 2 minutes on an H200. ONLY="NAME ..." runs
# those checks and serves alone.
set -u
BUILD=${1:?usage: server_fixes.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: server_fixes.sh BUILD_DIR OUT_DIR}
mkdir -p "$OUT"
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
R="$BUILD/roofline"
STUDENT="$BUILD/labs/roofline-decode-server"            # links labs/10-production/kernels (the skeleton)
SOLUTION="$BUILD/labs/roofline-decode-server-solution"  # links solutions/10-production/kernels
INC=labs/10-production/server/incidents
FIX=instructor/incidents/10-production-fixes
summary="$OUT/summary.txt"
: > "$summary"
log() { echo "$@" | tee -a "$summary"; }
start=$(date +%s)

log "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>&1)"
for f in "$R" "$STUDENT" "$SOLUTION"; do [[ -x $f ]] || log "MISSING: $f (build it first)"; done
# The roofs the reports use: the measured copy rate where `roofline ceilings` saved one.
s=$(date +%s)
"$R" --build-dir "$BUILD" ceilings > "$OUT/ceilings.log" 2>&1
log "ceilings: rc=$? in $(( $(date +%s) - s )) s: $(grep -i -m1 'memcpy' "$OUT/ceilings.log")"

# Configurations made here: the baseline with the fused small-batch step up to batch 4 (the course's
# kernels, linked where solutions/ exists), and with an fp8 cache.
{ cat $INC/baseline.yaml; echo "fused_max_batch: 4"; } > "$OUT/baseline-fused.yaml"
sed 's/^kv_cache: .*/kv_cache: fp8/' "$OUT/baseline-fused.yaml" > "$OUT/baseline-fp8.yaml"
sed 's/^kv_cache: .*/kv_cache: fp8/' $INC/baseline.yaml > "$OUT/baseline-fp8-unfused.yaml"
{ cat "$OUT/baseline-fused.yaml"; echo "overlap_launches: true"; } > "$OUT/baseline-fused-overlap.yaml"

# The reference check (reference.cuh derives the tolerances). want: the exit status expected.
only() { [[ -z ${ONLY:-} || " $ONLY " == *" $1 "* ]]; }  # ONLY="NAME ...": those checks and serves alone
check() {  # check NAME WANT PROGRAM CONFIG ARGS...
  local name=$1 want=$2 program=$3 config=$4; shift 4
  only "$name" || return 0
  local s=$(date +%s)
  timeout 120 "$program" --config "$config" --steps 1 --check 2 "$@" > "$OUT/check-$name.log" 2>&1
  local rc=$?
  log "check $name: rc=$rc in $(( $(date +%s) - s )) s $([[ $rc == "$want" ]] && echo as-expected || echo "UNEXPECTED: want $want"): $(grep -E '^check step|lab.s decode attention from|decode server:' "$OUT/check-$name.log" | tail -1 | cut -c1-200)"
}
for shape in "1 100" "3 257" "17 1000"; do
  set -- $shape
  check b$1-c$2-plain 0 "$SOLUTION" "$OUT/baseline-fused.yaml" --batch $1 --context $2
  check b$1-c$2-solution 0 "$SOLUTION" "$OUT/baseline-fused.yaml" --batch $1 --context $2 --attention student
done
check b1-c100-overlap 0 "$SOLUTION" "$OUT/baseline-fused-overlap.yaml" --batch 1 --context 100
check b3-c257-overlap 0 "$SOLUTION" "$OUT/baseline-fused-overlap.yaml" --batch 3 --context 257
check b3-c257-plain-unfused 0 "$SOLUTION" $INC/baseline.yaml --batch 3 --context 257
check b3-c257-fp8 0 "$SOLUTION" "$OUT/baseline-fp8.yaml" --batch 3 --context 257
check b17-c1000-fp8 0 "$SOLUTION" "$OUT/baseline-fp8.yaml" --batch 17 --context 1000
# The student edition's path: kernels.cu's plain attention, bf16 and fp8 (--plain-kernels).
check b3-c257-plainkernels 0 "$SOLUTION" $INC/baseline.yaml --batch 3 --context 257 --plain-kernels
check b3-c257-plainkernels-fp8 0 "$SOLUTION" "$OUT/baseline-fp8-unfused.yaml" --batch 3 --context 257 --plain-kernels
check b17-c1000-plainkernels-fp8 0 "$SOLUTION" "$OUT/baseline-fp8-unfused.yaml" --batch 17 --context 1000 --plain-kernels
# The skeleton writes nothing: outside the tolerance (exit 1), its file named.
check b3-c257-skeleton 1 "$STUDENT" $INC/baseline.yaml --batch 3 --context 257 --attention student

# The measurements: roofline serve's report of each (text and JSON).
serve() {  # serve NAME CONFIG ARGS...
  local name=$1 config=$2; shift 2
  only "$name" || return 0
  local s=$(date +%s)
  timeout 120 "$R" --build-dir "$BUILD" serve "$config" --no-build --json "$OUT/serve-$name.json" "$@" > "$OUT/serve-$name.log" 2>&1
  local rc=$?
  log "serve $name: rc=$rc in $(( $(date +%s) - s )) s: $(grep -m1 '^step ' "$OUT/serve-$name.log"); $(grep -m1 '^fraction' "$OUT/serve-$name.log"); $(grep -m1 '^regime' "$OUT/serve-$name.log" | cut -c1-200)"
}
serve b1-c4096-fused "$OUT/baseline-fused.yaml" --batch 1
serve b1-c4096-fused-overlap "$OUT/baseline-fused-overlap.yaml" --batch 1
serve b4-c4096-fused "$OUT/baseline-fused.yaml" --batch 4
serve b4-c4096-fused-overlap "$OUT/baseline-fused-overlap.yaml" --batch 4
serve b1-c4096-unfused $INC/baseline.yaml --batch 1
serve b1-c4096-fused-solution "$OUT/baseline-fused.yaml" --batch 1 --solutions --attention student
serve baseline $INC/baseline.yaml
serve baseline-solution $INC/baseline.yaml --solutions --attention student
serve incident-a $INC/incident-a.yaml
serve incident-a-fixed $FIX/incident-a-fixed.yaml
serve incident-b $INC/incident-b.yaml
serve incident-b-fixed $FIX/incident-b-fixed.yaml
serve incident-c $INC/incident-c.yaml
serve incident-d $INC/incident-d.yaml
serve incident-d-fixed $FIX/incident-d-fixed.yaml
# The student edition's server (kernels.cu's attention): the baseline and ticket A before and after its fix.
serve plainkernels-baseline $INC/baseline.yaml --plain-kernels
serve plainkernels-incident-a $INC/incident-a.yaml --plain-kernels
serve plainkernels-incident-a-fixed $FIX/incident-a-fixed.yaml --plain-kernels

# Each fix against the healthy server (the lab's bar: tokens/s per sequence, one over the step's
# time, at least 90% of baseline.yaml's).
python3 - "$OUT" <<'EOF' | tee -a "$summary"
import json, sys, os
out = sys.argv[1]
def run(name):
    try: return json.load(open(os.path.join(out, f"serve-{name}.json")))
    except Exception: return None
for prefix, incidents in (("", ("a", "b", "c", "d")), ("plainkernels-", ("a",))):
    base = run(prefix + "baseline")
    for inc in incidents:
        before, after = run(f"{prefix}incident-{inc}"), run(f"{prefix}incident-{inc}-fixed")
        line = f"{prefix}incident {inc}:"
        for label, r in (("before", before), ("fixed", after)):
            if r: line += f" {label} {r['tokens_per_s']:.1f} tokens/s ({r['regime']}, {r.get('regime_rule', '?')}),"
        last = after or before
        if base and last:
            share = base["step_s"] / last["step_s"]
            line += f" per sequence {100 * share:.1f}% of the baseline's ({'meets' if share >= 0.9 else 'under'} the 90% bar)"
        print(line)
EOF
log "== done $(date -u +%FT%TZ) in $(( $(date +%s) - start )) s"
