#!/usr/bin/env bash
# Lab 02 and `roofline profile` / `run --sanitize` on a GPU, for the batched device run.
#
#   scripts/device/profile.sh BUILD_DIR OUT_DIR
#
# Steps, each logged to OUT_DIR/NN-name.log, none stopping the others, most telling first:
#   1. build (a no-op when BUILD_DIR is built already);
#   2. the rewritten bank-conflict rung, given and fixed: verified, then profiled (the
#      conflict count and the limit each one shows), and lab 01's vectorized copy profiled
#      (DRAM bytes within 2% of the model's);
#   3. both ladders graded, each beside its peer measured in the same run; grading checks
#      every variant first (an incorrect kernel is reported INCORRECT, not timed), so this
#      is also the correctness check of every given kernel and every fix;
#   4. compute-sanitizer racecheck on the fixed row sum (shared memory, barriers);
#   5. the other eight profiles, then memcheck on one given copy, as long as the budget lasts;
#   6. checks on the profiles: the 2% DRAM bytes, the tenfold conflict cut, each given kernel
#      showing its defect and each fix only a roof.
# ncu's real tables land in OUT_DIR/ncu/csv/ as KIND-VARIANT.ncu.csv (KIND: given or
# solutions) beside versions.txt (the ncu, driver and GPU that made them), to be committed
# as CPU fixtures under grader/tests/data/ncu/. OUT_DIR/summary.txt last.
# Budget: 145 s in all (the batched device run allows this script 150); a step that would not fit is skipped
# and says so in the summary, and no step's limit runs past the budget.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: profile.sh BUILD_DIR OUT_DIR}" && pwd)
out=${2:?usage: profile.sh BUILD_DIR OUT_DIR}
mkdir -p "$out/ncu/csv"
out=$(cd "$out" && pwd)
roofline=("$build/roofline" --root "$root" --build-dir "$build")
log="$out/predictions.yaml"
lab=02-profile
variants=(copy_transposed_fp32 copy_scattered_fp32 copy_staged_fp32 row_sum_bank_conflict_bf16 fma_few_warps_fp32)
budget=${PROFILE_BUDGET_S:-145}  # seconds; the variable is for trying the script out
reserve=8  # for the checks and the summary at the end
start=$SECONDS
summary=()
step=0

# run NAME LIMIT_S NEEDS_S COMMAND...: logs to OUT/NN-NAME.log, records PASS/FAIL and the exit
# code. Skipped when fewer than NEEDS_S seconds of the budget are left; its limit never runs
# past the budget.
run() {
  local name=$1 limit=$2 needs=$3
  shift 3
  local left=$((budget - reserve - (SECONDS - start)))
  if ((left < needs)); then
    summary+=("$(printf 'SKIP %-48s %ds of the budget left, needs %ds (run it by hand)' "$name" "$left" "$needs")")
    return 99
  fi
  ((limit > left)) && limit=$left
  step=$((step + 1))
  local file
  file=$(printf '%s/%02d-%s.log' "$out" "$step" "$name")
  local t0=$SECONDS
  { echo "\$ $*"; timeout "$limit" "$@"; } > "$file" 2>&1
  local rc=$?
  summary+=("$(printf '%-4s %-48s exit %3d  %3ds' "$([[ $rc -eq 0 ]] && echo PASS || echo FAIL)" "$name" "$rc" $((SECONDS - t0)))")
  last_log=$file
  return $rc
}

# profile KIND VARIANT [LAB]: `roofline profile --json`, its report kept as
# OUT/ncu/KIND-VARIANT.json.log and ncu's table as OUT/ncu/csv/KIND-VARIANT.ncu.csv.
profile() {
  local kind=$1 v=$2 target_lab=${3:-$lab}
  local flag=() name="$kind-$v"
  [[ $kind == solutions ]] && flag=(--solutions)
  [[ $target_lab != "$lab" ]] && name="$target_lab-$v"
  run "profile-$name" 60 15 "${roofline[@]}" profile "$target_lab/$v" "${flag[@]}" --no-build --log "$log" --json \
    --svg "$out/ncu/$name.svg"
  local rc=$?
  ((rc == 99)) && return
  cp "$last_log" "$out/ncu/$name.json.log"
  # The JSON names the table roofline profile kept (.roofline/results/LAB/KIND/VARIANT.ncu.csv).
  local csv
  csv=$(python3 -c 'import json,sys; t=open(sys.argv[1]).read(); print(json.loads(t[t.index("{"):]).get("csv",""))' \
    "$last_log" 2>/dev/null)
  [[ -n $csv && -f $csv ]] && cp "$csv" "$out/ncu/csv/$name.ncu.csv"
}

{
  echo "date: $(date -u +%FT%TZ)"
  command -v ncu && ncu --version
  command -v compute-sanitizer && compute-sanitizer --version
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
} > "$out/ncu/versions.txt" 2>&1
cp "$out/ncu/versions.txt" "$out/ncu/csv/versions.txt"

run build 60 10 cmake --build "$build" --target roofline lab-$lab solution-$lab lab-01-memory-roof solution-01-memory-roof

# 2. The rewritten rung first: is it correct, and does each kernel show what it was built to show?
run verify-given-row_sum 30 5 "${roofline[@]}" run "$lab/row_sum_bank_conflict_bf16" --no-build --seed 6
run verify-solution-row_sum 30 5 "${roofline[@]}" run "$lab/row_sum_bank_conflict_bf16" --solutions --no-build --seed 6
profile given row_sum_bank_conflict_bf16
profile solutions row_sum_bank_conflict_bf16
profile solutions copy_vectorized_fp32 01-memory-roof

# 3. Both ladders, each variant beside its peer in the same run (and checked before it is timed).
run grade-solutions 60 20 "${roofline[@]}" grade $lab --all --solutions --no-build --log "$log" --seed 6 --json
run grade-given 60 25 "${roofline[@]}" grade $lab --all --no-build --score-without-prediction --log "$log" --seed 6 --json

# 4. The new shared-memory kernel under racecheck (its verify shapes, up to 4096 x 4096).
run sanitize-racecheck-solution-row_sum 30 15 "${roofline[@]}" run $lab/row_sum_bank_conflict_bf16 --solutions \
  --no-build --sanitize racecheck

# 5. The rest of the profiles, given kernels first.
for kind in given solutions; do
  for v in "${variants[@]}"; do
    [[ $v == row_sum_bank_conflict_bf16 ]] && continue
    profile "$kind" "$v"
  done
done

run sanitize-memcheck-given-copy_transposed 20 12 "${roofline[@]}" run $lab/copy_transposed_fp32 --no-build \
  --sanitize memcheck

# 6. Checks on what the profiles said (quick: they read the JSON kept above).
reserve=0
run check-2-percent 10 1 python3 - "$out/ncu/01-memory-roof-copy_vectorized_fp32.json.log" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
report = json.loads(text[text.index("{"):])
ratio = report["dram"]["bytes"] / report["model"]["bytes"]
print(f"DRAM bytes {report['dram']['bytes']:.6g} against the model's {report['model']['bytes']:.6g}: {ratio:.4f}x")
sys.exit(0 if abs(ratio - 1) <= 0.02 else 1)
PY

run check-bank-conflict-cut 10 1 python3 - "$out/ncu" <<'PY'
import json, sys, os
def report(name):
    text = open(os.path.join(sys.argv[1], name)).read()
    return json.loads(text[text.index("{"):])
given = report("given-row_sum_bank_conflict_bf16.json.log")
fixed = report("solutions-row_sum_bank_conflict_bf16.json.log")
g, f = given["shared_bank_conflicts"], fixed["shared_bank_conflicts"]
print(f"bank conflicts: given {g}, fixed {f} (predicted about 260e6 and under 0.1e6)")
for name, r in (("given", given), ("fixed", fixed)):
    print(f"{name}: time {r.get('time_s')}, DRAM bytes {r['dram']['bytes']:.6g} (model {r['model']['bytes']:.6g}), "
          f"causes {r.get('causes_shown')}, binding: {r.get('binding')}")
sys.exit(0 if g is not None and f is not None and g >= 10 * max(f, 1) else 1)
PY

# Every given kernel shows its defect in the counters; every fix shows none but a roof.
run check-defects-shown 10 1 python3 - "$out/ncu" <<'PY'
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

{
  echo "scripts/device/profile.sh on $(date -u +%FT%TZ)"
  echo "ncu: $(ncu --version 2>/dev/null | tail -1 || true); compute-sanitizer: $(compute-sanitizer --version 2>/dev/null | tail -1 || true)"
  echo "GPU: $(nvidia-smi -L 2>/dev/null | head -1 || true)"
  printf '%s\n' "${summary[@]}"
  echo "ncu tables kept: $(ls "$out/ncu/csv"/*.ncu.csv 2>/dev/null | wc -l) in $out/ncu/csv/"
  echo "total $((SECONDS - start))s of a ${budget}s budget; logs in $out"
} > "$out/summary.txt"
cat "$out/summary.txt"
