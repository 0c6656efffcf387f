// The overhead-bound loop, fixed by fusion.              (your file: edit the TODOs)
// One launch for all 512 steps: each thread keeps its value in a register from
// step to step. Before you write it: how long will 512 dependent FMAs take one
// thread (an FMA's result is ready ~4 cycles after it issues), and what does a
// launch cost? Is this still overhead-bound? Predict the speedup over
// overhead_launches; the course expects at least 5x.
#include "roofline/contract/elementwise.cuh"

namespace {

using roofline::elementwise::kFmaChainA;
using roofline::elementwise::kFmaChainB;
using roofline::elementwise::kFmaChainSteps;

__global__ void fused_kernel(const float* __restrict__ x, float* __restrict__ y, std::size_t n) {
    // TODO: one element per thread: load x[i], run all kFmaChainSteps steps in a loop, store y[i] once.
}

void fused(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    // TODO: enough blocks to cover n (8192 elements is only a few dozen blocks: this GPU has 132 SMs).
    unsigned blocks = 1;
    fused_kernel<<<blocks, 128, 0, stream>>>(x, y, n);
}

}  // namespace

ROOFLINE_FMA_CHAIN_VARIANT(overhead_fused, fused);
