// Overhead-bound: the same 512 steps on only 8192 values, one launch per step.
// Each launch does 8192 FMAs (~0.1 ns of the GPU's arithmetic) but costs a few
// microseconds to issue back to back (`roofline ceilings` measured 3.5-5.3 us
// on the H200), so 512 launches take ~2 ms whatever n is: shrink the input 16x
// and the time does not move.
#include "roofline/contract/elementwise.cuh"

namespace {

using roofline::elementwise::kFmaChainA;
using roofline::elementwise::kFmaChainB;
using roofline::elementwise::kFmaChainSteps;

__global__ void step_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n) out[i] = fmaf(in[i], kFmaChainA, kFmaChainB);
}

void launches(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    unsigned blocks = unsigned((n + 255) / 256);
    step_kernel<<<blocks, 256, 0, stream>>>(x, y, n);  // the first step reads x
    for (int step = 1; step < kFmaChainSteps; ++step) step_kernel<<<blocks, 256, 0, stream>>>(y, y, n);
}

}  // namespace

ROOFLINE_FMA_CHAIN_VARIANT(overhead_launches, launches);
