// The overhead-bound loop, fixed by fusion: one launch runs all 512 steps,
// each thread keeping its value in a register between steps. The graph
// (rung 4) measured only 4.5x faster than one launch per step on the H200
// (2.2 ms -> 492 us, 2026-11-29): each graph node is still a dependent kernel
// that must start and drain, about 1 us apiece. Fused, there is one launch and
// 512 dependent FMAs per thread (~512 x 4 cycles = ~1 us at 1.98 GHz), so
// expect a few microseconds in all: several hundred times faster, and still
// overhead-bound (the time does not move with n).
#include "roofline/contract/elementwise.cuh"

namespace {

using roofline::elementwise::kFmaChainA;
using roofline::elementwise::kFmaChainB;
using roofline::elementwise::kFmaChainSteps;

__global__ void fused_kernel(const float* __restrict__ x, float* __restrict__ y, std::size_t n) {
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    float value = x[i];
    for (int step = 0; step < kFmaChainSteps; ++step) value = fmaf(value, kFmaChainA, kFmaChainB);
    y[i] = value;
}

void fused(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    fused_kernel<<<unsigned((n + 127) / 128), 128, 0, stream>>>(x, y, n);
}

}  // namespace

ROOFLINE_FMA_CHAIN_VARIANT(overhead_fused, fused);
