#!/usr/bin/env bash
# Every register function a kernel file can call (grader/include/roofline/contract/*.cuh) has a
# launch kind in the judge (grader/harness/judge_kinds.cu). A family without one builds and runs
# unjudged, and every judged grading of it is a harness_error, found only on a GPU (run 93, the
# FP8 GEMM). With a second argument, the judge's file is read from there instead (the planted
# case of the test below).
#   check_judge_kinds.sh COURSE_ROOT [JUDGE_KINDS_CU]
set -uo pipefail
root=${1:?usage: check_judge_kinds.sh COURSE_ROOT [JUDGE_KINDS_CU]}
judge=${2:-$root/grader/harness/judge_kinds.cu}
registers=$(grep -ho 'bool register_[a-z0-9_]*(' "$root"/grader/include/roofline/contract/*.cuh | sed 's/^bool //; s/($//' | sort -u)
[[ -n $registers ]] || { echo "FAIL: no register_* functions found in $root/grader/include/roofline/contract"; exit 1; }
missing=()
for r in $registers; do
  grep -q "::$r(" "$judge" || missing+=("$r")
done
if (( ${#missing[@]} )); then
  echo "FAIL: $judge registers no judge kind for: ${missing[*]}"
  echo "  add a line like \`FAMILY::REGISTER(name(), remote_launch<FAMILY::LAUNCH_TYPE>(), kJudge);\` to register_judge_kinds()"
  exit 1
fi
echo "every register function ($(wc -w <<< "$registers")) has a judge kind"
