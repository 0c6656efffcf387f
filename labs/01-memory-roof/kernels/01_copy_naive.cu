// Rung 1: copy, one element per thread.             (your file: edit the TODOs)
// y[i] = x[i]. Copy does no arithmetic, so its floor is bytes / bandwidth: at the
// timed size 1 GiB is read and 1 GiB written. Before you grade, predict:
//   roofline calc --elementwise 268435456 --reads 1 --writes 1 --dtype fp32 --hardware h200-sxm
//   roofline predict 01-memory-roof/copy_naive_fp32 --time-us ... --regime ... --why "..."
// Check it with `roofline run 01-memory-roof/copy_naive_fp32` (correctness only).
#include "roofline/contract/elementwise.cuh"

namespace {

template <class T>
__global__ void copy_naive_kernel(const T* x, T* y, std::size_t n) {
    // TODO: compute this thread's global index i from blockIdx, blockDim and threadIdx
    //       (use std::size_t: 2^29 elements overflow an int once multiplied out).
    // TODO: if i is inside the array, copy x[i] into y[i]. Without the bounds check the
    //       last block writes past the end, and the grader's guard regions will notice.
}

template <class T>
void copy_naive(const T* x, T* y, std::size_t n, cudaStream_t stream) {
    constexpr int threads = 256;
    // TODO: enough blocks that every element has a thread: round n / threads up.
    unsigned blocks = 1;
    copy_naive_kernel<<<blocks, threads, 0, stream>>>(x, y, n);
}

}  // namespace

ROOFLINE_COPY_VARIANT(copy_naive_fp32, copy_naive<float>);
ROOFLINE_COPY_VARIANT(copy_naive_bf16, copy_naive<__nv_bfloat16>);
