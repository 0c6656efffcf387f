#!/usr/bin/env bash
# Lab 02's sixth defect (a tail: 133 heavy tiles on 132 SMs) and the diagnosis scored against
# the counters, on a GPU, for the batched device run.
#
#   scripts/device/tail.sh BUILD_DIR OUT_DIR
#
# Steps, each logged to OUT_DIR/NN-name.log, none stopping the others:
#   1. build (a no-op when BUILD_DIR is built already);
#   2. fma_tail_fp32, given and fixed, verified at the lab's verify shapes (n = 1, 17, 4099,
#      1000003: partial tiles) and the timed one; the given kernel is correct by design;
#   3. the student's loop end to end, into one log: diagnose the given kernel (tail_effect),
#      profile it, predict the fix (time and DRAM bytes), profile the fix, grade the fix:
#      the grade must give the diagnosis its 10 points and the bytes their 5;
#   4. the given kernel graded too (no prediction needed), beside the fix's grade: both as a
#      fraction of the FMA roof; then the given kernel profiled with ncu inside bwrap, as
#      `roofline batch` profiles lab 02 submissions;
#   5. checks on the JSON: the given kernel shows tail_effect (SMs busy under 80% of the busiest,
#      about 1.01 waves), the fix only at_roof; the floor and target in lab.yaml against what ran.
# ncu's tables land in OUT_DIR/ncu/csv/ (given-fma_tail_fp32.ncu.csv, solutions-...) beside
# versions.txt, to be committed under grader/tests/data/ncu/ in place of the synthetic pair.
# Budget: 60 s (TAIL_BUDGET_S to try it out); a step that would not fit is skipped and says so.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: tail.sh BUILD_DIR OUT_DIR}" && pwd)
out=${2:?usage: tail.sh BUILD_DIR OUT_DIR}
mkdir -p "$out/ncu/csv"
out=$(cd "$out" && pwd)
roofline=("$build/roofline" --root "$root" --build-dir "$build")
log="$out/predictions.yaml"
target=02-profile/fma_tail_fp32
budget=${TAIL_BUDGET_S:-60}
reserve=3
start=$SECONDS
summary=()
step=0

# run NAME LIMIT_S NEEDS_S COMMAND...: logs to OUT/NN-NAME.log, records PASS/FAIL and the exit
# code; skipped when fewer than NEEDS_S seconds of the budget are left.
run() {
  local name=$1 limit=$2 needs=$3
  shift 3
  local left=$((budget - reserve - (SECONDS - start)))
  if ((left < needs)); then
    summary+=("$(printf 'SKIP %-40s %ds of the budget left, needs %ds' "$name" "$left" "$needs")")
    return 99
  fi
  ((limit > left)) && limit=$left
  step=$((step + 1))
  local file
  file=$(printf '%s/%02d-%s.log' "$out" "$step" "$name")
  local t0=$SECONDS
  { echo "\$ $*"; timeout "$limit" "$@"; } > "$file" 2>&1
  local rc=$?
  summary+=("$(printf '%-4s %-40s exit %3d  %3ds' "$([[ $rc -eq 0 ]] && echo PASS || echo FAIL)" "$name" "$rc" $((SECONDS - t0)))")
  last_log=$file
  return $rc
}

# profile KIND: `roofline profile --json` into the shared log; the report kept as
# OUT/ncu/KIND-fma_tail_fp32.json.log, ncu's table as OUT/ncu/csv/KIND-fma_tail_fp32.ncu.csv.
profile() {
  local kind=$1 flag=()
  [[ $kind == solutions ]] && flag=(--solutions)
  run "profile-$kind" 30 10 "${roofline[@]}" profile $target "${flag[@]}" --no-build --log "$log" --json \
    --svg "$out/ncu/$kind-fma_tail_fp32.svg"
  local rc=$?
  ((rc == 99)) && return
  cp "$last_log" "$out/ncu/$kind-fma_tail_fp32.json.log"
  local csv
  csv=$(python3 -c 'import json,sys; t=open(sys.argv[1]).read(); print(json.loads(t[t.index("{"):]).get("csv",""))' \
    "$last_log" 2>/dev/null)
  [[ -n $csv && -f $csv ]] && cp "$csv" "$out/ncu/csv/$kind-fma_tail_fp32.ncu.csv"
}

{
  echo "date: $(date -u +%FT%TZ)"
  command -v ncu && ncu --version
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
} > "$out/ncu/csv/versions.txt" 2>&1

run build 60 5 cmake --build "$build" --target roofline lab-02-profile solution-02-profile

# 2. Correct everywhere, given and fixed (the verify shapes include partial tiles).
run verify-given 20 3 "${roofline[@]}" run $target --no-build --seed 16
run verify-solution 20 3 "${roofline[@]}" run $target --solutions --no-build --seed 16

# 3. The loop a student runs, the fix being the reference solution.
run diagnose-given 5 1 "${roofline[@]}" diagnose $target --log "$log" --cause tail_effect \
  --why "133 tiles, one block per SM: the SMs should be busy about half as long as the busiest"
profile given
run predict-fix 5 1 "${roofline[@]}" predict $target --solutions --log "$log" --time-us 235 --regime compute \
  --bytes 8.6e7 --why "12768 light tiles, 12.09 waves: ~90% of the FMA roof; x read once, y written once less the ~20 MB the L2 still holds at the end"
profile solutions
run grade-fix 30 8 "${roofline[@]}" grade $target --solutions --no-build --log "$log" --seed 16 --json

# 4. The given kernel's fraction of the FMA roof, for lab.yaml's floor.
run grade-given 30 8 "${roofline[@]}" grade $target --no-build --score-without-prediction --log "$out/given-log.yaml" \
  --seed 16 --json

# 4b. ncu inside the sandbox, as `roofline batch` runs it for lab 02 (bwrap from PATH, ROOFLINE_BWRAP
#     or build/bwrap as scripts/fetch_bwrap.sh leaves it); nothing hidden: this checks that ncu
#     and the lab program it starts work in bwrap, not what they can see.
bwrap=${ROOFLINE_BWRAP:-$(command -v bwrap || true)}
[[ -z $bwrap && -x $build/bwrap/usr/bin/bwrap ]] && bwrap=$build/bwrap/usr/bin/bwrap
if [[ -n $bwrap ]]; then
  run profile-given-in-sandbox 30 10 env "ROOFLINE_SANDBOX={\"bwrap\": \"$bwrap\", \"hidden\": []}" \
    "${roofline[@]}" profile $target --no-build --log "$out/sandbox-log.yaml" --json
else
  summary+=("SKIP profile-given-in-sandbox                     no bwrap (PATH, ROOFLINE_BWRAP, build/bwrap)")
fi

# 5. What the counters and the grades said.
reserve=0
run check-tail 10 1 python3 - "$out" <<'PY'
import json, os, sys, glob
out = sys.argv[1]
def report(path):
    text = open(path).read()
    return json.loads(text[text.index("{"):])
bad = 0
for kind, want in (("given", "tail_effect"), ("solutions", "at_roof")):
    try:
        r = report(os.path.join(out, "ncu", f"{kind}-fma_tail_fp32.json.log"))
    except Exception as e:
        print(f"BAD {kind}: no profile ({e})"); bad += 1; continue
    if "causes_shown" not in r:
        print(f"BAD {kind}: not profiled: {r.get('message', r)}"); bad += 1; continue
    occ = r.get("occupancy", {})
    ok = want in r["causes_shown"] and (kind == "given" or r["causes_shown"] == ["at_roof"])
    print(f"{'ok ' if ok else 'BAD'} {kind:9} shows {r['causes_shown']} (expected {want}); time {r['time_s']*1e6:.1f} us; "
          f"waves {occ.get('waves')}; SM busy balance {occ.get('sm_busy_balance')}; registers {occ.get('registers_per_thread')}; "
          f"DRAM {r['dram']['bytes']:.4g} B (model {r['model']['bytes']:.4g})")
    print(f"    binding: {r['binding']}")
    bad += not ok
for name in sorted(glob.glob(os.path.join(out, "*grade-*.log"))):
    try:
        g = report(name)
    except Exception as e:
        print(f"BAD {os.path.basename(name)}: no JSON ({e})"); bad += 1; continue
    pts = g.get("points", {})
    print(f"{os.path.basename(name)}: {g.get('outcome')}, {g.get('achieved')} {g.get('unit')}, fraction {g.get('fraction_scored')} ({g.get('scored_against')}), time {g.get('time_s', {}).get('median')} s, points {pts}")
    if "diagnosis" in g: print(f"    diagnosis: {g['diagnosis']}")
    if "grade-fix" in name:
        ok = pts.get("diagnosis") == 10 and pts.get("byte_prediction") == 5
        print(f"{'ok ' if ok else 'BAD'} the fix's grade gives the diagnosis 10 and the bytes 5")
        bad += not ok
sys.exit(1 if bad else 0)
PY

{
  echo "scripts/device/tail.sh on $(date -u +%FT%TZ)"
  echo "GPU: $(nvidia-smi -L 2>/dev/null | head -1 || true); ncu: $(ncu --version 2>/dev/null | tail -1 || true)"
  printf '%s\n' "${summary[@]}"
  [[ -n ${last_log:-} && $last_log == *check-tail.log ]] && sed -n '2,16p' "$last_log"
  echo "ncu tables kept: $(ls "$out/ncu/csv"/*.ncu.csv 2>/dev/null | wc -l) in $out/ncu/csv/"
  echo "total $((SECONDS - start))s of a ${budget}s budget; logs in $out"
} | head -40 > "$out/summary.txt"
cat "$out/summary.txt"
