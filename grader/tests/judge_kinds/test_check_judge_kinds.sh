#!/usr/bin/env bash
# The judge-kinds check can fail: a copy of judge_kinds.cu without the FP8 GEMM's kinds is refused,
# and the refusal names the missing function.
#   test_check_judge_kinds.sh CHECK COURSE_ROOT
set -uo pipefail
check=${1:?}; root=${2:?}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
grep -v 'register_gemm_fp8' "$root/grader/harness/judge_kinds.cu" > "$work/judge_kinds.cu"
out=$(bash "$check" "$root" "$work/judge_kinds.cu" 2>&1) && { echo "FAIL: the check passed a judge without the FP8 kinds"; exit 1; }
grep -q "register_gemm_fp8" <<< "$out" || { echo "FAIL: the refusal does not name register_gemm_fp8: $out"; exit 1; }
echo "PASS: a judge without the FP8 kinds is refused: $out" | head -2
