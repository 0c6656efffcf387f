// Rung 5: the other roof. The fma_chain op: y = x, then 512 dependent FMAs
// (model.hpp), on 2^24 fp32 values. 1024 FLOPs per 8 bytes is 128 FLOP/byte,
// right of the H200's fp32 ridge (~15), so no amount of memory tuning helps:
// the floor is 17.2 GFLOP / 63.5 TFLOP/s (the ceilings' FMA kernel) = ~270 us.
// Each thread runs four chains (one float4), so while one FMA waits its 4-cycle
// latency three independent ones can issue: the same trick as the ceilings'
// kernel. Expect >= 95% of the measured FMA roof.
#include "roofline/contract/elementwise.cuh"

namespace {

using roofline::elementwise::kFmaChainA;
using roofline::elementwise::kFmaChainB;
using roofline::elementwise::kFmaChainSteps;

__device__ inline float chain(float value) {
#pragma unroll 16
    for (int step = 0; step < kFmaChainSteps; ++step) value = fmaf(value, kFmaChainA, kFmaChainB);
    return value;
}

__global__ void chain4_kernel(const float4* __restrict__ x, float4* __restrict__ y, std::size_t vectors) {
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= vectors) return;
    float4 v = x[i];
    float a = v.x, b = v.y, c = v.z, d = v.w;
#pragma unroll 16
    for (int step = 0; step < kFmaChainSteps; ++step) {
        a = fmaf(a, kFmaChainA, kFmaChainB);
        b = fmaf(b, kFmaChainA, kFmaChainB);
        c = fmaf(c, kFmaChainA, kFmaChainB);
        d = fmaf(d, kFmaChainA, kFmaChainB);
    }
    y[i] = make_float4(a, b, c, d);
}

__global__ void chain_tail(const float* __restrict__ x, float* __restrict__ y, std::size_t first, std::size_t n) {
    std::size_t i = first + threadIdx.x;
    if (i < n) y[i] = chain(x[i]);
}

void fma_compute(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    std::size_t vectors = n / 4;
    if (vectors > 0) {
        chain4_kernel<<<unsigned((vectors + 255) / 256), 256, 0, stream>>>(reinterpret_cast<const float4*>(x),
                                                                         reinterpret_cast<float4*>(y), vectors);
    }
    if (n % 4) chain_tail<<<1, 32, 0, stream>>>(x, y, vectors * 4, n);
}

}  // namespace

ROOFLINE_FMA_CHAIN_VARIANT(fma_compute_fp32, fma_compute);
