// Rung 6: the same 13 launches, captured once in a CUDA graph and replayed.
// Nothing changes on the GPU: the same kernels read the same bytes. What goes is the host's
// part: one cudaGraphLaunch instead of 13 launch calls, and the driver issues each kernel
// node for about a microsecond or less instead of a whole launch (lab 00 measured ~0.5-1 us a
// node against ~2-5 us a launch on the H200).
//
// Prediction. hidden 512: the given step is 13 launches of ~2-4 us each with ~1.8 us of bytes
// under them, ~30-45 us; as a graph, 13 nodes of ~1-1.5 us plus the kernels' own short runs,
// ~15-20 us: about 2x. hidden 4096: ~112 us of bytes dominate and the launches mostly hide
// behind running kernels; the graph saves a few microseconds, under 10%.
//
// A graph bakes in its pointers and sizes: keep one per distinct DecodeLayer.
#include "given/decode_layer_steps.cuh"

#include <cstring>
#include <map>
#include <string>

namespace {

using roofline::gemv::DecodeLayer;

std::map<std::string, cudaGraphExec_t> graphs;  // key: the DecodeLayer's bytes

std::string key_of(const DecodeLayer& layer) {
    return std::string(reinterpret_cast<const char*>(&layer), sizeof(layer));
}

void step(const DecodeLayer& layer, cudaStream_t stream) {
    auto [it, made] = graphs.try_emplace(key_of(layer), nullptr);
    if (made) {
        cudaGraph_t graph = nullptr;
        cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
        roofline::gemv::steps::launch_decode_layer_steps(layer, stream);
        cudaStreamEndCapture(stream, &graph);
        cudaGraphInstantiate(&it->second, graph, 0);
        cudaGraphDestroy(graph);  // the executable graph keeps what it needs
    }
    cudaGraphLaunch(it->second, stream);
}

}  // namespace

ROOFLINE_DECODE_LAYER_VARIANT(decode_graph_h512, step);
ROOFLINE_DECODE_LAYER_VARIANT(decode_graph_h4096, step);
