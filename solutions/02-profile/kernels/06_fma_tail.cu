// Defect 6 of lab 02, fixed: the same chains in light tiles, so the last wave is a sliver.
// A block is now 256 threads with 4 chains each (a tile of 1024 elements): ~16 registers a
// thread, eight blocks per SM, 1056 blocks per wave on the H200. The timed size makes
// 12768 tiles, 12.09 waves, and the blocks of the last part-wave start as soon as earlier
// ones finish, so the SMs stay busy to within a few per cent of the end. Four chains per
// thread and eight warps per scheduler still hide the FMA latency: the kernel runs at the
// FMA roof (lab 01's fma_compute rung).
// The other fix, a grid of exactly one heavy block per SM that splits n evenly, works too,
// but its split must come out even to the last chain, or a tail comes back inside each block.
#include "roofline/contract/elementwise.cuh"

namespace {

using roofline::elementwise::kFmaChainA;
using roofline::elementwise::kFmaChainB;
using roofline::elementwise::kFmaChainSteps;

constexpr int kThreads = 256;
constexpr int kChains = 4;
constexpr std::size_t kTile = std::size_t(kThreads) * kChains;  // elements per block: 1024

__global__ void __launch_bounds__(kThreads) fma_light_tile_kernel(const float* __restrict__ x, float* __restrict__ y,
                                                                  std::size_t n) {
    const std::size_t base = blockIdx.x * kTile + threadIdx.x;
    float v[kChains];
#pragma unroll
    for (int j = 0; j < kChains; ++j) {
        const std::size_t i = base + std::size_t(j) * kThreads;
        v[j] = i < n ? x[i] : 0.0f;
    }
    for (int step = 0; step < kFmaChainSteps; ++step) {
#pragma unroll
        for (int j = 0; j < kChains; ++j) v[j] = fmaf(v[j], kFmaChainA, kFmaChainB);
    }
#pragma unroll
    for (int j = 0; j < kChains; ++j) {
        const std::size_t i = base + std::size_t(j) * kThreads;
        if (i < n) y[i] = v[j];
    }
}

void fma_tail(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    auto blocks = static_cast<unsigned>((n + kTile - 1) / kTile);
    fma_light_tile_kernel<<<blocks, kThreads, 0, stream>>>(x, y, n);
}

}  // namespace

ROOFLINE_FMA_CHAIN_VARIANT(fma_tail_fp32, fma_tail);
