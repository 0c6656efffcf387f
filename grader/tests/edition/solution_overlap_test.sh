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

# Another lab's skeleton that repeats this lab's answer: reported.
mkdir -p "$course/labs/10-other/kernels"
sed -n '3,9p' "$course/solutions/09-demo/kernels/01_sum.cu" > "$course/labs/10-other/kernels/01_copy.cu"
[[ $(run) == 1 ]] || { cat "$work/out.txt"; fail "a skeleton repeating another lab's answer was not reported"; }

# No solutions to compare against: an error, not a pass.
"$check" "$course" "$work/nowhere" > /dev/null 2>&1
[[ $? == 2 ]] || fail "a missing solutions folder did not exit 2"
echo "PASS: solution_overlap reports repeated answer runs and passes boilerplate"
