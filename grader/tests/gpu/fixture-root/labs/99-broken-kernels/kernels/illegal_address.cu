#include "roofline/contract/elementwise.cuh"

namespace {
__global__ void wild_kernel(const float* x, float* y, std::size_t n) {
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    float* wild = y + (std::size_t(1) << 40);  // 4 TiB past the output: nothing is mapped there
    if (i < n) wild[i] = x[i];
}
void launch(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    wild_kernel<<<unsigned((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
}  // namespace

ROOFLINE_COPY_VARIANT(illegal_address, launch);
