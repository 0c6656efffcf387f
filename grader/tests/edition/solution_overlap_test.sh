#!/usr/bin/env bash
# The rules of solution_overlap on a made-up course of one lab: what it must
# report (six answer lines repeated, however re-indented or re-commented, in
# given code or in another lab's skeleton) and what it must let pass (the boilerplate a skeleton
# shares with its solution, five repeated lines, a run made only of the
# skeleton's own lines).
#
#   solution_overlap_test.sh PATH_TO_SOLUTION_OVERLAP
set -uo pipefail
check=${1:?usage: solution_overlap_test.sh PATH_TO_SOLUTION_OVERLAP}
work=$(mktemp -d /tmp/roofline-overlap-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
course=$work/course
mkdir -p "$course/solutions/09-demo/kernels" "$course/labs/09-demo/kernels" "$course/grader"

# The solution: a given signature and registration around eight lines of answer.
cat > "$course/solutions/09-demo/kernels/01_sum.cu" <<'CU'
#include "demo.cuh"
namespace {
__global__ void sum_rows(const float* x, float* y, int rows, int cols) {
    const int row = blockIdx.x;
    float acc = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) acc += x[row * cols + c];
    for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_down_sync(0xffffffffu, acc, offset);
    if (threadIdx.x % 32 == 0) atomicAdd(&y[row], acc);
    __syncwarp();
    acc = 0.0f;
    (void)rows;
}
void launch_sum(const float* x, float* y, int rows, int cols, cudaStream_t stream) {
    sum_rows<<<rows, 256, 0, stream>>>(x, y, rows, cols);
}
}  // namespace
ROOFLINE_DEMO_VARIANT(sum, launch_sum);
CU
# Its skeleton: the same signature and registration, TODOs for the body.
cat > "$course/labs/09-demo/kernels/01_sum.cu" <<'CU'
#include "demo.cuh"
namespace {
__global__ void sum_rows(const float* x, float* y, int rows, int cols) {
    // TODO: one block per row; a strided loop, a warp reduction, one atomicAdd per warp.
}
void launch_sum(const float* x, float* y, int rows, int cols, cudaStream_t stream) {
    sum_rows<<<rows, 256, 0, stream>>>(x, y, rows, cols);
}
}  // namespace
ROOFLINE_DEMO_VARIANT(sum, launch_sum);
CU
run() { "$check" "$course" "$course/solutions" > "$work/out.txt" 2>&1; echo $?; }

[[ $(run) == 0 ]] || { cat "$work/out.txt"; fail "a skeleton sharing only its boilerplate with the solution was reported"; }

# Six answer lines in given code, re-indented, with other comments and blank lines between: reported.
cat > "$course/grader/given.cuh" <<'CU'
// given helper
inline __device__ float row_total(const float* x, int row, int cols) {
  const int row = blockIdx.x;   // which row
  float acc = 0.0f;

  for (int c = threadIdx.x; c < cols; c += blockDim.x) acc += x[row * cols + c];
  /* the warp's lanes */ for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_down_sync(0xffffffffu, acc, offset);
  if (threadIdx.x % 32 == 0)   atomicAdd(&y[row], acc);
  {
  __syncwarp();
  }
}
CU
[[ $(run) == 1 ]] || { cat "$work/out.txt"; fail "six repeated answer lines (re-indented, re-commented) were not reported"; }
grep -q "grader/given.cuh:3-10 repeats answer code of solutions/09-demo/kernels/01_sum.cu" "$work/out.txt" \
  || { cat "$work/out.txt"; fail "the report does not name the file, its lines and the solution"; }

# Five of them: under the run length, not reported.
sed -i '/__syncwarp/d' "$course/grader/given.cuh"
[[ $(run) == 0 ]] || { cat "$work/out.txt"; fail "five repeated lines were reported (a run is six)"; }

# Six lines that are all the skeleton's own (signature, launch, registration): not reported.
grep -v '^#' "$course/labs/09-demo/kernels/01_sum.cu" | grep -v TODO > "$course/grader/boilerplate.cu"
[[ $(run) == 0 ]] || { cat "$work/out.txt"; fail "a run made only of the skeleton's lines was reported"; }

# A header the lab's solutions share (solutions/LAB/NAME.cuh, an open rung's reference reusing a
# guided rung's kernel): the lines the lab's skeletons hand out are given for it too, so a
# skeleton that holds them is not reported; its answer lines repeated elsewhere still are.
given_lines='    const int row = blockIdx.y * 8 + threadIdx.y;
    const int col = blockIdx.x * 32 + threadIdx.x;
    const bool inside = row < rows && col < cols;
    const float scale_of_row = scales[row];
    const float value_here = x[row * cols + col];
    const int out_index = row * cols + col;'
printf '#include "demo.cuh"\n__global__ void scale(const float* x, const float* scales, float* y, int rows, int cols) {\n%s\n    // TODO: y = value_here * scale_of_row where inside.\n}\n' "$given_lines" \
  > "$course/labs/09-demo/kernels/02_scale.cu"
printf '#pragma once\n__global__ void scale(const float* x, const float* scales, float* y, int rows, int cols) {\n%s\n    if (inside) y[out_index] = value_here * scale_of_row;\n}\n' "$given_lines" \
  > "$course/solutions/09-demo/scale.cuh"
printf '#include "../scale.cuh"\nROOFLINE_DEMO_VARIANT(scale, launch_scale);\n' > "$course/solutions/09-demo/kernels/02_scale.cu"
[[ $(run) == 0 ]] || { cat "$work/out.txt"; fail "a skeleton holding the given lines of its lab's shared solution header was reported"; }
printf '%s\n    if (inside) y[out_index] = value_here * scale_of_row;\n' "$given_lines" | tail -n 6 > "$course/grader/scaled.cuh"
[[ $(run) == 1 ]] && grep -q "grader/scaled.cuh:1-6 repeats answer code of solutions/09-demo/scale.cuh" "$work/out.txt" \
  || { cat "$work/out.txt"; fail "the answer of a shared solution header, repeated in given code, was not reported"; }
rm "$course/grader/scaled.cuh"

# Another lab's skeleton that repeats this lab's answer: reported.
mkdir -p "$course/labs/10-other/kernels"
sed -n '3,9p' "$course/solutions/09-demo/kernels/01_sum.cu" > "$course/labs/10-other/kernels/01_copy.cu"
[[ $(run) == 1 ]] || { cat "$work/out.txt"; fail "a skeleton repeating another lab's answer was not reported"; }

# Given code once (--pairs): a skeleton that shares 20 code lines in a row with its solution
# fails, 19 pass; comments and blank lines between them do not break a run; an allowance
# raises the cap for one pair, and a stale or unknown allowance fails.
pairs=$work/pairs
mkdir -p "$pairs/labs/01-demo/kernels" "$pairs/solutions/01-demo/kernels" "$pairs/labs/01-demo/given"
plant_pair() {  # plant_pair N: skeleton and solution share N given lines, then differ
  local i
  for i in $(seq 1 "$1"); do printf '    const float given_%d = x[%d] * %d.0f;  // line %d\n\n' "$i" "$i" "$i" "$i"; done \
    > "$pairs/labs/01-demo/kernels/01_sum.cu"
  cp "$pairs/labs/01-demo/kernels/01_sum.cu" "$pairs/solutions/01-demo/kernels/01_sum.cu"
  sed -i 's|// line|/* given */ //|' "$pairs/solutions/01-demo/kernels/01_sum.cu"
  echo '    // TODO: the sum' >> "$pairs/labs/01-demo/kernels/01_sum.cu"
  echo '    y[0] = given_1 + given_2;' >> "$pairs/solutions/01-demo/kernels/01_sum.cu"
}
pairs_run() { "$check" --pairs "$pairs" "$@" > "$work/pairs.txt" 2>&1; echo $?; }
plant_pair 20
# A given header of the same lines is one file, not a pair: it never counts.
cp "$pairs/solutions/01-demo/kernels/01_sum.cu" "$pairs/labs/01-demo/given/sum.cuh"
[[ $(pairs_run) == 1 ]] || { cat "$work/pairs.txt"; fail "a skeleton sharing 20 code lines with its solution passed --pairs"; }
grep -q "labs/01-demo/kernels/01_sum.cu:1-39 and solutions/01-demo/kernels/01_sum.cu:1-39 share 20 code lines" "$work/pairs.txt" \
  || { cat "$work/pairs.txt"; fail "--pairs does not name the two files, their lines and the run"; }
# The solution's kernel moved to a header the lab's solutions share: still the same pair.
mv "$pairs/solutions/01-demo/kernels/01_sum.cu" "$pairs/solutions/01-demo/sum_shared.cuh"
printf '#include "../sum_shared.cuh"\nREGISTER(sum);\n' > "$pairs/solutions/01-demo/kernels/01_sum.cu"
[[ $(pairs_run) == 1 ]] || { cat "$work/pairs.txt"; fail "20 lines shared through the solution's ../sum_shared.cuh passed --pairs"; }
rm "$pairs/solutions/01-demo/sum_shared.cuh"
plant_pair 19
[[ $(pairs_run) == 0 ]] || { cat "$work/pairs.txt"; fail "a skeleton sharing 19 code lines with its solution failed --pairs"; }
plant_pair 25
echo "labs/01-demo/kernels/01_sum.cu 25  # allowed: today's run" > "$work/allow.txt"
[[ $(pairs_run --allow "$work/allow.txt") == 0 ]] || { cat "$work/pairs.txt"; fail "an allowance of 25 lines did not pass a run of 25"; }
plant_pair 26
[[ $(pairs_run --allow "$work/allow.txt") == 1 ]] || { cat "$work/pairs.txt"; fail "a run of 26 passed an allowance of 25"; }
plant_pair 10
[[ $(pairs_run --allow "$work/allow.txt") == 1 ]] && grep -q "remove its allowance" "$work/pairs.txt" \
  || { cat "$work/pairs.txt"; fail "a stale allowance (the run is 10 now) was not reported"; }
echo "labs/01-demo/kernels/02_gone.cu 30" > "$work/allow.txt"
[[ $(pairs_run --allow "$work/allow.txt") == 1 ]] || { cat "$work/pairs.txt"; fail "an allowance for a missing pair was not reported"; }
echo "labs/01-demo/kernels/01_sum.cu many" > "$work/allow.txt"
[[ $(pairs_run --allow "$work/allow.txt") == 2 ]] && grep -q "allow.txt:1: expected" "$work/pairs.txt" \
  || { cat "$work/pairs.txt"; fail "a malformed allowance did not exit 2 naming its line"; }

# No solutions to compare against: an error, not a pass.
"$check" "$course" "$work/nowhere" > /dev/null 2>&1
[[ $? == 2 ]] || fail "a missing solutions folder did not exit 2"
echo "PASS: solution_overlap reports repeated answer runs and given code written twice, and passes boilerplate"
