// The overhead-bound loop, fixed with a CUDA graph.       (your file: edit the TODOs)
// Keep the 512 launches, but capture them once into a graph and replay it: the
// driver then issues each kernel node for a fraction of a microsecond instead of
// a full launch. Predict the speedup over overhead_launches: what does a graph
// node still cost that a launch call also cost? (Rung 5, fusion, is the fix
// that must reach 5x.)
#include "roofline/contract/elementwise.cuh"

#include <map>
#include <tuple>

namespace {

using roofline::elementwise::kFmaChainA;
using roofline::elementwise::kFmaChainB;
using roofline::elementwise::kFmaChainSteps;

__global__ void step_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
    // TODO: the same step as in 03_overhead_launches.cu.
}

// A graph bakes its pointers in, so keep one per (x, y, n).
std::map<std::tuple<const float*, float*, std::size_t>, cudaGraphExec_t> graphs;

void graph_launches(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    // TODO: if there is no graph for (x, y, n) yet:
    //         cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
    //         ... the same kFmaChainSteps launches as before, on `stream` ...
    //         cudaStreamEndCapture(stream, &graph); cudaGraphInstantiate(&exec, graph, 0);
    //       then cudaGraphLaunch(exec, stream).
    (void)graphs;
    step_kernel<<<1, 256, 0, stream>>>(x, y, n);
}

}  // namespace

ROOFLINE_FMA_CHAIN_VARIANT(overhead_graph, graph_launches);
