// Rung 5: the other roof.                            (your file: edit the TODOs)
// y = x, then kFmaChainSteps dependent FMAs: y = fmaf(y, kFmaChainA, kFmaChainB)
// (grader/include/roofline/contract/fma_chain.hpp), on 2^24 fp32 values. Count the FLOPs
// per byte: which roof is this under? What is the floor on the H200?
//   roofline calc --elementwise 16777216 --flops-per-element 1024 --dtype fp32 --hardware h200-sxm
// This variant is scored against the fp32 FMA ceiling that `roofline ceilings`
// measured, not against cudaMemcpy.
#include "roofline/contract/elementwise.cuh"

namespace {

using roofline::elementwise::kFmaChainA;
using roofline::elementwise::kFmaChainB;
using roofline::elementwise::kFmaChainSteps;

__global__ void chain4_kernel(const float4* __restrict__ x, float4* __restrict__ y, std::size_t vectors) {
    // TODO: each thread loads one float4 and runs the chain on its four values. Interleave the
    //       four chains (one step of each per loop iteration) so that four independent FMAs are
    //       ready to issue while each waits for its predecessor's result.
}

__global__ void chain_tail(const float* __restrict__ x, float* __restrict__ y, std::size_t first, std::size_t n) {
    // TODO: the last n % 4 values, one per thread.
}

void fma_compute(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    std::size_t vectors = n / 4;
    // TODO: launch chain4_kernel over the vectors and chain_tail for the remainder.
    (void)vectors;
    chain_tail<<<1, 32, 0, stream>>>(x, y, 0, 0);
}

}  // namespace

ROOFLINE_FMA_CHAIN_VARIANT(fma_compute_fp32, fma_compute);
