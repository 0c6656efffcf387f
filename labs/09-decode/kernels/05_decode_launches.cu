// Rung 5, given: one decoder layer at batch 1 as 13 launches.      (given code: read it, do not edit)
// The step of a Llama-style layer for one new token (the arithmetic: roofline/contract/decode_layer.cuh),
// written as a serving stack without fusion runs it: one small kernel per step (the kernels:
// given/decode_layer_steps.cuh). Two sizes:
//
//   decode_launches_h512:  hidden 512, 4 heads, ffn 1408, 512 cached positions: 7.5 MB a step,
//                          ~1.8 us of bytes at the memory roof, against 13 launches;
//   decode_launches_h4096: hidden 4096, 32 heads, ffn 11008, 4096 cached positions: 472 MB a
//                          step, ~112 us of bytes; the same 13 launches.
//
// Predict both times before you grade them: which regime is each size in? Then look at the
// gaps: `roofline timeline 09-decode/decode_launches_h512`. Rung 6 removes the launches' cost
// with a CUDA graph, rung 7 removes launches themselves by fusing steps.
#include "given/decode_layer_steps.cuh"

namespace {

void step(const roofline::gemv::DecodeLayer& layer, cudaStream_t stream) {
    roofline::gemv::steps::launch_decode_layer_steps(layer, stream);
}

}  // namespace

ROOFLINE_DECODE_LAYER_VARIANT(decode_launches_h512, step);
ROOFLINE_DECODE_LAYER_VARIANT(decode_launches_h4096, step);
