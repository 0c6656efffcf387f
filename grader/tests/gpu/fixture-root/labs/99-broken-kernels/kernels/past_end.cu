#include "roofline/contract/elementwise.cuh"

namespace {
// The bounds check is off by one: the last thread writes y[n].
__global__ void copy_kernel(const float* x, float* y, std::size_t n) {
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n) y[i] = x[i];
    if (i == n) y[i] = 1.0f;
}
void launch(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    copy_kernel<<<unsigned((n + 256) / 256), 256, 0, stream>>>(x, y, n);
}
}  // namespace

ROOFLINE_COPY_VARIANT(past_end, launch);
