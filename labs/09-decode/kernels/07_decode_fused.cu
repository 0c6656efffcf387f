// Rung 7: fewer kernels: fuse the steps the timeline shows are launches, not work.
//                                                                  (your file: edit the TODOs)
// The timeline of rung 6 shows what is left: 13 nodes, each a short kernel with an idle gap
// before it, and several of them (the norms, rotary, the adds, silu) moving a few KiB. Fold
// each of those into the GEMV next to it. The plan below has 6 kernels, replayed as a CUDA
// graph (the wrapper at the end is rung 6's, given):
//
//   1 qkv:        rmsnorm folded into W_qkv's dot products: W (x g) / rms(x), each block summing
//                 x^2 itself; rotary applied on the way out: a warp owns the rows i and i + 64
//                 of one head, the pair rotary mixes;
//   2 attention:  flash-decoding: block (split, head) scores, exponentiates and sums its own
//                 slice of the positions, writing its max, its sum and 128 partial outputs;
//   3 combine:    one block per head rescales the slices to the largest max and adds them;
//   4 out:        h = x + W_o o, the residual added in the GEMV's store;
//   5 mlp up:     rmsnorm of h folded in as in 1; a warp owns gate row j and up row j and
//                 stores silu(g) u;
//   6 down:       y = h + W_down act, rounded to bf16 in the store.
//
// The helpers (warp and block sums, 8-wide loads, the two-row dot product) are given. Predict
// both sizes' times before you grade: what does fusing save at hidden 512, and at 4096?
#include "roofline/contract/decode_layer.cuh"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>

// The helpers (given): the layer's constants, the scratch layout, warp and block sums, 8-wide
// loads, the rms and the dot products.
#include "given/decode_fused_helpers.cuh"

namespace {

using roofline::gemv::DecodeLayer;
using roofline::gemv::kHeadDim;
using roofline::gemv::kRmsEpsilon;
using roofline::gemv::kRopeBase;

// 1. q, k, v = W_qkv rmsnorm(x), q and k rotated. Warp unit u owns rows base + i and base + i + 64
// of one head (base: the section q, k or v, and the head).
__global__ __launch_bounds__(kWarps * 32) void qkv_kernel(DecodeLayer l, float* qkv) {
    // TODO: qkv = q, k, v of the contract (its first three lines), in fp32: q and k rotated at
    //       position l.cache, v as it comes. The launch gives one warp unit (blockIdx.x * kWarps
    //       + the warp) per pair of rows rotary mixes, 3 hidden / 2 units: rows i and i + 64 of
    //       one head of q, of k or of v. Why the pair: the rotation needs both dot products, and
    //       one warp holding both needs no exchange. The norm folds in: rmsnorm(x) * attn_norm
    //       dotted with a row is (row . (x * attn_norm)) times x's inverse rms, one scalar, so
    //       each block computes it itself (inverse_rms: the whole block takes part, before any
    //       thread may leave) and dot_two_rows takes the gamma.
    (void)l, (void)qkv;
}

// 2. Block (split, head): its slice of positions (the last position is the new k and v).
__global__ __launch_bounds__(kAttentionThreads) void attention_partial_kernel(DecodeLayer l, const float* qkv,
                                                                            float* partial, int chunk) {
    // TODO: block (split blockIdx.x, head blockIdx.y) takes its slice of chunk positions of the
    //       head's 0 .. l.cache; the last, l.cache, is the new token, whose k and v are in qkv,
    //       not in the cache. It leaves in `partial`, at a slot of kPartial floats of its own
    //       (kPartial's comment gives the order), what the combine needs to merge the slices
    //       exactly (lesson 08, section 3's recurrence): its largest score, the sum of its
    //       exponentials taken against that max, and the 128 sums of V rows weighted by them,
    //       unnormalized. The scores go through the dynamic shared memory the launch sizes for
    //       one slice (weights_bytes). A slice can be empty (the splits round the positions up):
    //       it must leave values the combine can recognise and skip.
    (void)l, (void)qkv, (void)partial, (void)chunk;
}

// 3. One block per head: the slices rescaled to the largest max and added.
__global__ __launch_bounds__(kHeadDim) void attention_combine_kernel(const float* partial, float* o, int splits) {
    // TODO: o for this head, thread d its column d: the slices brought to a common max (the
    //       largest, so that no exponential overflows), their weighted outputs and their sums
    //       added, and the one division at the end. Skip the empty slices: nothing they hold may
    //       reach the sums (scratch is NaN on entry, and a -inf max minus another is NaN).
    (void)partial, (void)o, (void)splits;
}

// 4. h = x + W_o o; 6. y = h + W_down act (bf16). One warp per row.
template <class Residual, class Out>
__global__ __launch_bounds__(kWarps * 32) void gemv_residual_kernel(const __nv_bfloat16* W, const float* in,
                                                                    const Residual* residual, Out* out, int N, int K) {
    // TODO: one warp per row (blockIdx.x * kWarps + the warp): out[row] = (row of W) . in +
    //       residual[row] (dot_row, the given one-row dot product), the residual added in the
    //       store, not by a kernel of its own (out is float for h, bf16 for y: round once).
    (void)W, (void)in, (void)residual, (void)out, (void)N, (void)K;
}

// 5. act = silu(g) u with g, u = W_gate_up rmsnorm(h): warp j owns gate row j and up row ffn + j.
__global__ __launch_bounds__(kWarps * 32) void mlp_up_kernel(DecodeLayer l, const float* h, float* act) {
    // TODO: act[j] = silu(g_j) u_j (the contract's last lines) with the norm of h folded in as in
    //       qkv_kernel (mlp_norm the gamma). Warp j owns gate row j and up row ffn + j: the two
    //       dot products silu pairs, so one warp holding both needs no exchange.
    (void)l, (void)h, (void)act;
}

}  // namespace

// The launch and the graph around it (given).
#include "given/decode_fused_launch.cuh"

ROOFLINE_DECODE_LAYER_VARIANT(decode_fused_h512, step);
ROOFLINE_DECODE_LAYER_VARIANT(decode_fused_h4096, step);
