#include "roofline/contract/elementwise.cuh"

namespace {
__global__ void hang_kernel(const float* x, float* y, std::size_t n) {
    volatile float* out = y;
    std::size_t i = 0;
    while (out[0] == out[0] || i < n) ++i;  // the poison is NaN, but we write a number first
}
__global__ void write_first(float* y) { y[0] = 1.0f; }
void launch(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    write_first<<<1, 1, 0, stream>>>(y);
    hang_kernel<<<1, 1, 0, stream>>>(x, y, n);
}
}  // namespace

ROOFLINE_COPY_VARIANT(hang, launch);
