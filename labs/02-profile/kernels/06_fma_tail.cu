// Defect 6 of lab 02: the FMA chain in heavy tiles, one tile more than the GPU holds at once.   (your file)
// Each block of 1024 threads takes a tile of 4 x 24 x 1024 elements: each thread runs 24
// chains at once (24 independent FMAs per step, plenty to hide the FMA latency), four times
// over. Those 24 values take ~56 registers a thread, so one block fills an SM's register
// file: one block per SM, and one block is enough to keep an SM's FMA units busy.
// The grid is one block per tile. The lab's timed size is 133 tiles; the H200 has 132 SMs.
// Before you profile: how long does one tile take on one SM at the FMA roof, how many
// tiles does each SM run one after another, and what fraction of the roof is left? Then
// `roofline profile` and read the waves per SM and how long the average SM was busy
// against the busiest. Fix: make the last wave's share of the time small (many small
// tiles instead of a few heavy ones), or give every SM the same share of the work.
#include "roofline/contract/elementwise.cuh"

namespace {

using roofline::elementwise::kFmaChainA;
using roofline::elementwise::kFmaChainB;
using roofline::elementwise::kFmaChainSteps;

constexpr int kThreads = 1024;
constexpr int kChains = 24;   // independent chains per thread, in registers
constexpr int kRounds = 4;    // times each thread runs its kChains chains
constexpr std::size_t kTile = std::size_t(kThreads) * kChains * kRounds;  // elements per block: 98304

__global__ void __launch_bounds__(kThreads, 1)
fma_heavy_tile_kernel(const float* __restrict__ x, float* __restrict__ y, std::size_t n) {
    for (int round = 0; round < kRounds; ++round) {
        // Element j of this round: base + j * kThreads, so a warp's loads stay coalesced.
        const std::size_t base = blockIdx.x * kTile + std::size_t(round) * kThreads * kChains + threadIdx.x;
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
}

void fma_tail(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    auto blocks = static_cast<unsigned>((n + kTile - 1) / kTile);
    fma_heavy_tile_kernel<<<blocks, kThreads, 0, stream>>>(x, y, n);
}

}  // namespace

ROOFLINE_FMA_CHAIN_VARIANT(fma_tail_fp32, fma_tail);
