// Overhead-bound: the same chain on 8192 values, one launch per step.   (your file: edit the TODOs)
// 512 launches of a kernel that does 8192 FMAs. What does one launch cost
// (`roofline ceilings` measures it), and so what will 512 cost? Does n matter?
#include "roofline/contract/elementwise.cuh"

namespace {

using roofline::elementwise::kFmaChainA;
using roofline::elementwise::kFmaChainB;
using roofline::elementwise::kFmaChainSteps;

__global__ void step_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
    // TODO: one step for every element: out[i] = fmaf(in[i], kFmaChainA, kFmaChainB).
}

void launches(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    unsigned blocks = unsigned((n + 255) / 256);
    // TODO: the first step reads x and writes y; the other kFmaChainSteps - 1 steps update y in
    //       place, one launch each.
    step_kernel<<<blocks, 256, 0, stream>>>(x, y, n);
}

}  // namespace

ROOFLINE_FMA_CHAIN_VARIANT(overhead_launches, launches);
