// The overhead-bound loop, fixed with a CUDA graph: the 512 launches are
// captured once (per set of buffers) and replayed as one graph launch, which
// the driver issues at ~0.5 us per kernel node instead of ~3.5-5 us per
// launch: we predicted ~7x faster (about 2 ms down to ~0.27 ms). Measured on the
// H200 (2026-11-29): 2.2 ms -> 492 us, 4.5x. A graph node is still a kernel that
// must start and drain before the next, dependent one can: ~1 us each, not the
// 0.5 us that `roofline ceilings` measures for empty single-block nodes. Still
// overhead-bound: the time does not move with n. Fusing the 512 steps into one
// kernel (rung 5) removes the launches altogether.
#include "roofline/contract/elementwise.cuh"

#include <map>
#include <tuple>

namespace {

using roofline::elementwise::kFmaChainA;
using roofline::elementwise::kFmaChainB;
using roofline::elementwise::kFmaChainSteps;

__global__ void step_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n) out[i] = fmaf(in[i], kFmaChainA, kFmaChainB);
}

// One instantiated graph per (x, y, n): the graph bakes the pointers in.
std::map<std::tuple<const float*, float*, std::size_t>, cudaGraphExec_t> graphs;

void graph_launches(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    auto key = std::make_tuple(x, y, n);
    auto it = graphs.find(key);
    if (it == graphs.end()) {
        unsigned blocks = unsigned((n + 255) / 256);
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
        step_kernel<<<blocks, 256, 0, stream>>>(x, y, n);
        for (int step = 1; step < kFmaChainSteps; ++step) step_kernel<<<blocks, 256, 0, stream>>>(y, y, n);
        cudaStreamEndCapture(stream, &graph);
        cudaGraphInstantiate(&exec, graph, 0);
        cudaGraphDestroy(graph);
        it = graphs.emplace(key, exec).first;
    }
    cudaGraphLaunch(it->second, stream);
}

}  // namespace

ROOFLINE_FMA_CHAIN_VARIANT(overhead_graph, graph_launches);
