// Open rung: one decoder layer at batch 1, hidden 4096, of your own design. No TODOs: the
// contract is below, the ideas are in the lessons; how many kernels, what each one fuses, how the
// attention over the cache is split and how the step is launched are yours to choose.
//
// Contract (variant open_decode_h4096 in lab.yaml):
//   The decode_layer op of roofline/decode_layer.cuh (its first comment gives the exact
//   arithmetic: rmsnorm, W_qkv, rotary, attention over the cache and the new k, v, W_o and the
//   residual, rmsnorm, W_gate_up, silu, W_down and the residual), bf16 weights, x, cache and y;
//   intermediates in fp32 in `layer.scratch` (NaN on entry to a verified launch: write before you
//   read). Timed at hidden 4096, 32 heads, ffn 11008, 4096 cached positions against cudaMemcpy of
//   the layer's bytes in the same run; checked on lab.yaml's verify layers.
//   Launch on `stream`; no synchronization, allocation or host copies in the launch (a CUDA
//   graph made once per distinct DecodeLayer is fine, as the header says).
//
// What you may use: roofline/decode_layer.cuh (DecodeLayer, kHeadDim, kRmsEpsilon, kRopeBase,
// decode_scratch_floats), the given helpers of given/decode_fused_helpers.cuh (warp and block
// sums, 8-wide loads, the inverse rms, one- and two-row dot products), CUDA's headers and graphs.
// given/decode_fused_launch.cuh is rung 7's launch of rung 7's six kernels: a design, not a
// helper; write your own launch.
//
// Ideas to choose from (lessons/09-decode.md):
//   §1  the decode roofline: the bytes of the weights and the cache set the floor; which of them
//       dominates at hidden 4096.
//   §4  the host gap: launches against a graph, and how many nodes the step needs.
//   §5  three regimes in one step: which parts are bytes, which are launches, which are latency.
//   lessons/04-fusion.md §1-2 and §4: what fusing an elementwise step or a norm into its GEMV
//   saves, and the one-pass reduction.
//   Also yours: how the attention over 4096 positions is split across blocks (flash-decoding's
//   split and combine, or one block per head) and how many rows a warp or block owns in a GEMV.
//
// Full performance marks: lab.yaml's target_fraction of cudaMemcpy on the layer's bytes.
// Predict first (roofline predict 09-decode/open_decode_h4096 ...); the debrief compares designs.
#include "roofline/contract/decode_layer.cuh"

#include "given/decode_fused_helpers.cuh"

namespace {

void open_decode_step(const roofline::gemv::DecodeLayer& layer, cudaStream_t stream) {
    // Your kernels and their launch. As given, nothing is launched and y is never written: the
    // grader reports the variant INCORRECT until you write it.
    (void)layer, (void)stream;
}

}  // namespace

ROOFLINE_DECODE_LAYER_VARIANT(open_decode_h4096, open_decode_step);
