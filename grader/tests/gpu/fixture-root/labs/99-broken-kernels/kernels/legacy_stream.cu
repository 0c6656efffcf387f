// The `stream` argument forgotten: the kernel goes to the legacy default stream,
// which does not wait for the harness's non-blocking stream. It races the checks and
// the timing events; the grader names it instead of giving a random verdict.
#include "roofline/contract/elementwise.cuh"

namespace {
__global__ void copy_kernel(const float* x, float* y, std::size_t n) {
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n) y[i] = x[i];
}
void launch(const float* x, float* y, std::size_t n, cudaStream_t) {
    copy_kernel<<<unsigned((n + 255) / 256), 256>>>(x, y, n);
}
}  // namespace

ROOFLINE_COPY_VARIANT(legacy_stream, launch);
