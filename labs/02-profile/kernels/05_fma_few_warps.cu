// Defect 5 of lab 02: the FMA chain of lab 01 run by one warp per SM.   (your file)
// Each element needs 512 FMAs, each one waiting for the one before (y = fma(y, a, b)).
// This launch gives each SM a single 32-thread block that loops over the array, so each
// SM's four schedulers have one warp between them, and that warp waits out the FMA
// latency after every instruction.
// Before you profile: what fraction of the FMA roof can one warp per SM reach (the FMA
// latency and the number of FMA units per SM are in lesson 02)? Then `roofline profile`
// and read occupancy and the binding sentence. Fix: give the SMs enough independent
// chains: many more warps, or several elements per thread interleaved.
#include "roofline/contract/elementwise.cuh"

namespace {

using roofline::elementwise::kFmaChainA;
using roofline::elementwise::kFmaChainB;
using roofline::elementwise::kFmaChainSteps;

__global__ void fma_one_warp_kernel(const float* __restrict__ x, float* __restrict__ y, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        float v = x[i];
        for (int step = 0; step < kFmaChainSteps; ++step) v = fmaf(v, kFmaChainA, kFmaChainB);
        y[i] = v;
    }
}

void fma_few_warps(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    int device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    fma_one_warp_kernel<<<sms, 32, 0, stream>>>(x, y, n);
}

}  // namespace

ROOFLINE_FMA_CHAIN_VARIANT(fma_few_warps_fp32, fma_few_warps);
