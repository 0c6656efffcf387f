#!/usr/bin/env bash
# Lab 06 and `roofline profile` / `run --sanitize` on a GPU, for the batched device run.
#
#   scripts/device/profile.sh BUILD_DIR OUT_DIR
#
# Steps, each logged to OUT_DIR/NN-name.log, none stopping the others: build lab 06;
# correctness of every variant, given and solution; grade both ladders (the peer measured
# in the same run); profile every variant of lab 06 both ways and lab 01's vectorized copy
# (the 2% DRAM-bytes check); the bank-conflict fix's tenfold cut; compute-sanitizer on
# two variants. ncu's real tables (and `ncu --version`) land in OUT_DIR/ncu/ to compare
# with the hand-written fixtures in grader/tests/data/ncu/. OUT_DIR/summary.txt last.
# Meant to take under 3 minutes on an H200: the profiles stop early past a time budget.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: profile.sh BUILD_DIR OUT_DIR}" && pwd)
out=${2:?usage: profile.sh BUILD_DIR OUT_DIR}
mkdir -p "$out/ncu"
out=$(cd "$out" && pwd)
roofline=("$build/roofline" --root "$root" --build-dir "$build")
log="$out/predictions.yaml"
lab=06-profile
variants=(copy_transposed_fp32 copy_scattered_fp32 copy_staged_fp32 row_sum_bank_conflict_bf16 fma_few_warps_fp32)
start=$SECONDS
summary=()
step=0

# run NAME LIMIT_S COMMAND...: logs to OUT/NN-NAME.log, records PASS/FAIL and the exit code.
run() {
  local name=$1 limit=$2
  shift 2
  step=$((step + 1))
  local file
  file=$(printf '%s/%02d-%s.log' "$out" "$step" "$name")
  local t0=$SECONDS
  { echo "\$ $*"; timeout "$limit" "$@"; } > "$file" 2>&1
  local rc=$?
  summary+=("$(printf '%-4s %-48s exit %3d  %3ds' "$([[ $rc -eq 0 ]] && echo PASS || echo FAIL)" "$name" "$rc" $((SECONDS - t0)))")
  return $rc
}

{ command -v ncu && ncu --version; command -v compute-sanitizer && compute-sanitizer --version; nvidia-smi -L; } \
  > "$out/ncu/versions.txt" 2>&1

run build 300 cmake --build "$build" --target roofline lab-$lab solution-$lab lab-01-memory-roof solution-01-memory-roof

for v in "${variants[@]}"; do
  run "verify-given-$v" 60 "${roofline[@]}" run "$lab/$v" --no-build --seed 6
  run "verify-solution-$v" 60 "${roofline[@]}" run "$lab/$v" --solutions --no-build --seed 6
done

run grade-solutions 120 "${roofline[@]}" grade $lab --all --solutions --no-build --log "$log" --seed 6 --json
run grade-given 150 "${roofline[@]}" grade $lab --all --no-build --score-without-prediction --log "$log" --seed 6 --json

# The issue's check: a 1 GiB float4 copy's DRAM bytes within 2% of the model's 2 x 1 GiB.
run profile-01-copy_vectorized 90 "${roofline[@]}" profile 01-memory-roof/copy_vectorized_fp32 --solutions --no-build \
  --log "$log" --json --svg "$out/ncu/copy_vectorized_fp32.svg"
cp "$out/$(printf '%02d' $step)-profile-01-copy_vectorized.log" "$out/ncu/copy_vectorized_fp32.json.log"
run check-2-percent 10 python3 - "$out/ncu/copy_vectorized_fp32.json.log" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
report = json.loads(text[text.index("{"):])
ratio = report["dram"]["bytes"] / report["model"]["bytes"]
print(f"DRAM bytes {report['dram']['bytes']:.6g} against the model's {report['model']['bytes']:.6g}: {ratio:.4f}x")
sys.exit(0 if abs(ratio - 1) <= 0.02 else 1)
PY

for kind in given solutions; do
  for v in "${variants[@]}"; do
    if (( SECONDS - start > 140 )); then
      summary+=("SKIP profile-$kind-$v: past the 140 s budget (run it by hand: roofline profile $lab/$v)")
      continue
    fi
    flag=()
    [[ $kind == solutions ]] && flag=(--solutions)
    run "profile-$kind-$v" 60 "${roofline[@]}" profile "$lab/$v" "${flag[@]}" --no-build --log "$log" --json \
      --svg "$out/ncu/$kind-$v.svg"
    cp "$out/$(printf '%02d' $step)-profile-$kind-$v.log" "$out/ncu/$kind-$v.json.log"
  done
done
# ncu's own tables, as `roofline profile` kept them: the real counterpart of the fixtures.
cp "$root"/.roofline/results/$lab/*/*.ncu.csv "$out/ncu/" 2>/dev/null
for f in "$root"/.roofline/results/01-memory-roof/solutions/copy_vectorized_fp32.ncu.csv; do
  [[ -f $f ]] && cp "$f" "$out/ncu/01-memory-roof-copy_vectorized_fp32.ncu.csv"
done

run check-bank-conflict-cut 10 python3 - "$out/ncu" <<'PY'
import json, sys, os
def conflicts(name):
    text = open(os.path.join(sys.argv[1], name)).read()
    return json.loads(text[text.index("{"):])["shared_bank_conflicts"]
given = conflicts("given-row_sum_bank_conflict_bf16.json.log")
fixed = conflicts("solutions-row_sum_bank_conflict_bf16.json.log")
print(f"bank conflicts: given {given}, fixed {fixed}")
sys.exit(0 if given is not None and fixed is not None and given >= 10 * max(fixed, 1) else 1)
PY

# Every given kernel shows its defect in the counters; every fix shows none but a roof.
run check-defects-shown 10 python3 - "$out/ncu" <<'PY'
import json, sys, os
expected = {"copy_transposed_fp32": "uncoalesced", "copy_scattered_fp32": "traversal_order",
            "copy_staged_fp32": "occupancy", "row_sum_bank_conflict_bf16": "bank_conflicts",
            "fma_few_warps_fp32": "occupancy"}
bad = 0
for variant, cause in expected.items():
    for kind in ("given", "solutions"):
        path = os.path.join(sys.argv[1], f"{kind}-{variant}.json.log")
        try:
            text = open(path).read()
            shown = json.loads(text[text.index("{"):])["causes_shown"]
        except Exception as e:
            print(f"{kind} {variant}: no report ({e})"); bad += 1; continue
        ok = cause in shown if kind == "given" else shown == ["at_roof"]
        print(f"{'ok ' if ok else 'BAD'} {kind:9} {variant:28} shows {shown}; expected {cause if kind == 'given' else 'at_roof'}")
        bad += not ok
sys.exit(1 if bad else 0)
PY

run sanitize-memcheck-given-copy_transposed 30 "${roofline[@]}" run $lab/copy_transposed_fp32 --no-build --sanitize memcheck
run sanitize-racecheck-solution-row_sum 40 "${roofline[@]}" run $lab/row_sum_bank_conflict_bf16 --solutions --no-build \
  --sanitize racecheck

{
  echo "scripts/device/profile.sh on $(date -u +%FT%TZ)"
  echo "ncu: $(ncu --version 2>/dev/null | tail -1 || true); compute-sanitizer: $(compute-sanitizer --version 2>/dev/null | tail -1 || true)"
  echo "GPU: $(nvidia-smi -L 2>/dev/null | head -1 || true)"
  printf '%s\n' "${summary[@]}"
  echo "total ${SECONDS}s; logs in $out; ncu tables and reports in $out/ncu/"
} > "$out/summary.txt"
cat "$out/summary.txt"
