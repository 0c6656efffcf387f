// Defect 5 of lab 02, fixed: one thread per element, so every SM holds 64 warps.
// Each element's 512 FMAs still depend on one another, but now each scheduler has many
// warps to issue from while one waits out the FMA latency, and the FMA units stay busy:
// the kernel reaches the FMA roof (lab 01's fma_compute rung).
#include "roofline/contract/elementwise.cuh"

namespace {

using roofline::elementwise::kFmaChainA;
using roofline::elementwise::kFmaChainB;
using roofline::elementwise::kFmaChainSteps;

__global__ void fma_many_warps_kernel(const float* __restrict__ x, float* __restrict__ y, std::size_t n) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    for (int step = 0; step < kFmaChainSteps; ++step) v = fmaf(v, kFmaChainA, kFmaChainB);
    y[i] = v;
}

void fma_few_warps(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    constexpr int threads = 256;
    auto blocks = static_cast<unsigned>((n + threads - 1) / threads);
    fma_many_warps_kernel<<<blocks, threads, 0, stream>>>(x, y, n);
}

}  // namespace

ROOFLINE_FMA_CHAIN_VARIANT(fma_few_warps_fp32, fma_few_warps);
