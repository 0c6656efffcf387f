#!/usr/bin/env bash
# The open rungs (issue 34) on the H200: for each lab's open rung (lab.yaml `open: true`), the
# skeleton must grade INCORRECT and our reference solution CORRECT; the reference's fraction of
# the peer is what the rung's target_fraction is set from (about 90% of it). Lab 07 (B200 only)
# is left out: on an H200 it is refused before it builds.
#   bash scripts/device/open_rungs.sh BUILD_DIR OUT_DIR
# Builds only the lab programs it grades (lab-LAB and solution-LAB), grades each open rung once
# from labs/ and once from solutions/ (`roofline grade LAB/VARIANT [--solutions] --json`), and
# writes OUT_DIR/<lab>-<variant>-{skeleton,solution}.json, their stderr, and OUT_DIR/summary.txt:
# one line per rung with both outcomes and the reference's fraction of the peer.
set -uo pipefail
build=${1:?usage: open_rungs.sh BUILD_DIR OUT_DIR}; out=${2:?usage: open_rungs.sh BUILD_DIR OUT_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"; summary=$out/summary.txt; : > "$summary"
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
note() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a "$summary"; }

# lab -> its open rung (the lab.yaml variant with `open: true`)
rungs=(
  "00-three-regimes open_compute_fma"
  "01-memory-roof open_add_bf16"
  "02-profile open_row_sum_bf16"
  "03-gemm open_gemm"
  "04-fusion open_gemm_bias_gelu_k512"
  "05-layouts open_transpose_bf16"
  "06-async open_gemm_abt"
  "08-attention open_attention_causal"
  "09-decode open_decode_h4096"
  "10-production open_decode_attention_b8_ragged"
)
note "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
targets=(roofline roofline-judge)
for entry in "${rungs[@]}"; do
  lab=${entry%% *}
  grep -q "name: ${entry##* }," "$root/labs/$lab/lab.yaml" || note "WARNING: $lab/lab.yaml has no variant ${entry##* }"
  targets+=("lab-$lab" "solution-$lab")
done
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$out/build.log" 2>&1
timeout 480 cmake --build "$build" --parallel "$(nproc)" --target "${targets[@]}" -- -k 0 >> "$out/build.log" 2>&1
note "build rc=$?"; grep -E "error|FAILED" "$out/build.log" | head -20 >> "$summary"

# outcome and fraction from a grade's JSON (the first '{' on: the JSON follows any notes)
describe() {
  python3 - "$1" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
start = text.find('{')
try:
    j = json.loads(text[start:]) if start >= 0 else None
except ValueError:
    j = None
if not isinstance(j, dict):
    print("no JSON")
else:
    fraction = j.get("fraction_scored")
    print(j.get("outcome", "?"), "correct" if j.get("correct") else "not correct",
          "" if fraction is None else f"fraction_scored={fraction:.4f} of the {j.get('scored_against', '?')}")
PY
}
for entry in "${rungs[@]}"; do
  lab=${entry%% *}; variant=${entry##* }
  for kind in skeleton solution; do
    flag=""; [[ $kind == solution ]] && flag=--solutions
    file=$out/$lab-$variant-$kind.json
    timeout 120 "$build/roofline" --root "$root" --build-dir "$build" grade "$lab/$variant" $flag --no-build --json \
      --score-without-prediction > "$file" 2> "${file%.json}.err"
    rc=$?
    note "$lab/$variant $kind: rc=$rc, $(describe "$file")"
  done
done
note "expected: every skeleton rc=1 and incorrect; every solution rc=0 and correct. Set each rung's"
note "target_fraction to ~0.9 x the solution's fraction_scored where lab.yaml says PLACEHOLDER (06-async, 10-production)."
