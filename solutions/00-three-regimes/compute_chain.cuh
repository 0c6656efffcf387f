// The design of solutions/00-three-regimes/kernels/02_compute.cu, shared with the lab's open rung
// (kernels/06_open_compute.cu), which reuses it as our reference; each file registers it under its own name.
#pragma once
// Compute-bound: 512 dependent FMAs per element on 2^24 fp32 values.
// 2 x 512 FLOPs per 8 bytes moved is 128 FLOP/byte, ~8x right of the H200's
// fp32 ridge, so the time is FLOPs / FMA rate: 17.2 GFLOP at the ~63.5 TFLOP/s
// the ceilings' FMA kernel reaches is ~270 us. We predicted one chain per
// thread would be enough (16 warps per scheduler to cover a 4-cycle FMA
// latency); measured on the H200 (2026-11-29): 325 us, 83% of the FMA roof.
// Lab 01's rung 5, four interleaved chains per thread, reached 94%: the
// per-thread load, store and index work and the 65536-block launch are paid
// once per chain here, once per four chains there.
#include "roofline/contract/elementwise.cuh"

namespace {

using roofline::elementwise::kFmaChainA;
using roofline::elementwise::kFmaChainB;
using roofline::elementwise::kFmaChainSteps;

__global__ void chain_kernel(const float* __restrict__ x, float* __restrict__ y, std::size_t n) {
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    float value = x[i];
#pragma unroll 16
    for (int step = 0; step < kFmaChainSteps; ++step) value = fmaf(value, kFmaChainA, kFmaChainB);
    y[i] = value;
}

void chain(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    chain_kernel<<<unsigned((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}

}  // namespace

