// Writes through its const input, using it as scratch: the output is right, but the
// input the grader handed over is not the one it gets back.
#include "roofline/contract/elementwise.cuh"

namespace {
__global__ void scratch_copy(const float* x, float* y, std::size_t n) {
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n) {
        float* scratch = const_cast<float*>(x);
        float value = scratch[i];
        scratch[i] = value * 2.0f;
        y[i] = scratch[i] * 0.5f;
    }
}
void launch(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    scratch_copy<<<unsigned((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
}  // namespace

ROOFLINE_COPY_VARIANT(input_scratch, launch);
