#!/usr/bin/env bash
# roofline batch on a GPU (label gpu): seven generated submissions of lab 01 (correct,
# without predictions, wrong, crashing, hanging, not compiling, one named with markup)
# graded with small hidden shapes and a short hang limit on every GPU here; each must
# be named right, and report.html must show the markup name as text.
# Skips (77) without an NVIDIA GPU, or in the student edition (no solutions/ to
# generate submissions from). scripts/device_batch.sh is the full two-GPU check.
#
#   batch_gpu_test.sh ROOFLINE COURSE_ROOT BUILD_DIR
set -uo pipefail
roofline=${1:?usage: batch_gpu_test.sh ROOFLINE COURSE_ROOT BUILD_DIR}
course=${2:?}
build=${3:?}
if ! nvidia-smi -L >/dev/null 2>&1; then echo "skipped: no NVIDIA GPU here (nvidia-smi -L failed)"; exit 77; fi
if [[ ! -d $course/solutions ]]; then echo "skipped: no solutions/ to make submissions from"; exit 77; fi
work=$(mktemp -d /tmp/roofline-batch-gpu-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; cat "$work/batch.log" >&2 2>/dev/null; exit 1; }

"$course/scripts/make_test_submissions.sh" "$work/all" "$roofline" > /dev/null || fail "make_test_submissions.sh"
mkdir -p "$work/subs"
hostile='<img src=x onerror=document.body.dataset.pwned=1>'
for name in correct_1 no_predictions_1 wrong_tail crash_address hang_spin compile_syntax "$hostile"; do
  mv "$work/all/$name" "$work/subs/"
done
cat > "$work/hidden.yaml" <<'YAML'
lab: 01-memory-roof
seed: 77
timeout_s: 8
shapes:
  timed: {n: 16777259}
  verify: [{n: 3}, {n: 4099}]
variants:
  copy_naive_bf16:      {timed: {n: 33554467}}
  copy_vectorized_bf16: {timed: {n: 33554467}}
  scale_bf16:           {timed: {n: 33554467}}
  add_bf16:             {timed: {n: 33554467}}
  fma_compute_fp32:     {timed: {n: 2097169}}
YAML
# The class is the course's own, generated: graded in the sandbox where bwrap works here, else
# without one (the batch refuses that unless told).
sandbox_flag=()
bwrap_bin=${ROOFLINE_BWRAP:-$(command -v bwrap || true)}
if [[ -z $bwrap_bin ]] || ! "$bwrap_bin" --unshare-all --die-with-parent --ro-bind / / true 2>/dev/null; then
  sandbox_flag=(--no-sandbox-i-trust-these-submissions)
fi
timeout 600 "$roofline" --root "$course" --build-dir "$build" batch 01-memory-roof --submissions "$work/subs" \
  --out "$work/out" --hidden "$work/hidden.yaml" --gpus all "${sandbox_flag[@]}" > "$work/batch.log" 2>&1 || fail "batch exited $?"
csv=$work/out/gradebook.csv
cat "$csv"
while IFS=, read -r name expected; do
  [[ -d $work/subs/$name ]] || continue
  got=$(awk -F, -v n="$name" 'NR > 1 && $1 == n { print $2 }' "$csv")
  [[ $got == "$expected" ]] || fail "$name: expected $expected, got '$got'"
done < "$work/all/expected.csv"
score=$(awk -F, '$1 == "correct_1" { print $3 }' "$csv")
awk -v s="$score" 'BEGIN { exit !(s > 400) }' || fail "correct_1 scored only $score of 900"
page=$work/out/report.html
[[ -f $page ]] || fail "no report.html beside summary.md"
grep -qF '<img src=x' "$page" && fail "report.html holds the submission's name as markup"
grep -qF '&lt;img src=x onerror=document.body.dataset.pwned=1&gt;' "$page" || fail "report.html does not show the name as text"
echo "PASS: seven submissions named correctly on the GPU, report.html escapes the hostile name"
