// Open rung: the compute-bound chain of rung 2, of your own design. No TODOs: the contract is
// below, the ideas are in the lessons; how the FMAs are spread over threads, warps and blocks so
// that the FMA pipes never wait is yours to choose.
//
// Contract (variant open_compute_fma in lab.yaml):
//   y[i] = x[i] after kFmaChainSteps (512) steps of v = fmaf(v, kFmaChainA, kFmaChainB), fp32, each
//   step exactly one fmaf in that order (roofline/elementwise.cuh and fma_chain.hpp: the
//   registration is register_fma_chain, the signature CopyLaunch<float>). Timed at n = 2^24 and
//   swept at n/4 and n/16 (the regime is classified from the sweep), scored as a fraction of the
//   GPU's FMA roof; checked on lab.yaml's verify sizes (1, 4099, 100003): every n works.
//   Launch on `stream`; no synchronization, allocation or host copies.
//
// What you may use: roofline/elementwise.cuh (kFmaChainA, kFmaChainB, kFmaChainSteps), CUDA's
// headers and device queries. The chain of each element is sequential by definition: any
// parallelism is across elements.
//
// Ideas to choose from:
//   lessons/00-three-regimes.md §1-4: the three regimes and the fix that helps the compute one;
//   lessons/01-roofline.md §2-3 (the FMA roof and its worked numbers) and §6 (latency is hidden by
//   independent work: warps, or independent chains in one thread).
//   Also yours: elements per thread, block size, and the grid (one thread per element, or fewer
//   threads each running several chains).
//
// Full performance marks: lab.yaml's target_fraction of the FMA roof; 40 of the lab's points are
// for the prediction. Predict first (roofline predict 00-three-regimes/open_compute_fma ...).
#include "roofline/contract/elementwise.cuh"

namespace {

void open_chain(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    // Your kernel and its launch. As given, nothing is launched and y is never written: the
    // grader reports the variant INCORRECT until you write it.
    (void)x, (void)y, (void)n, (void)stream;
}

}  // namespace

ROOFLINE_FMA_CHAIN_VARIANT(open_compute_fma, open_chain);
