// Rung 6: the same 13 launches, captured once in a CUDA graph.      (your file: edit the TODOs)
// Nothing changes on the GPU: the same kernels read the same bytes. What goes is the host's
// part of every launch. Before you write it, predict the step's time at both sizes: what does
// a graph node still cost that a launch also cost (lab 00's rung 4 measured it), and at which
// size does that matter?
//
// A graph bakes in its pointers and sizes: keep one per distinct DecodeLayer.
#include "given/decode_layer_steps.cuh"

#include <map>
#include <string>

namespace {

using roofline::gemv::DecodeLayer;

std::map<std::string, cudaGraphExec_t> graphs;  // key: the DecodeLayer's bytes

std::string key_of(const DecodeLayer& layer) {
    return std::string(reinterpret_cast<const char*>(&layer), sizeof(layer));
}

void step(const DecodeLayer& layer, cudaStream_t stream) {
    // TODO: replay the 13 launches as one graph: the first time a layer is seen (no entry for
    //       key_of(layer) in `graphs`), record launch_decode_layer_steps on the stream by stream
    //       capture and instantiate the result, as lab 00's rung 4 did (capture thread-local, so
    //       that other threads' CUDA calls are not refused meanwhile); every time, launch that
    //       layer's graph on the stream. Nothing is synchronized here, and the instantiated
    //       graph is kept: made once, replayed at every later step.
    (void)graphs;
    (void)layer;
    (void)stream;
}

}  // namespace

ROOFLINE_DECODE_LAYER_VARIANT(decode_graph_h512, step);
ROOFLINE_DECODE_LAYER_VARIANT(decode_graph_h4096, step);
