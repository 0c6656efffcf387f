// Rung 4: Hopper attention, FlashAttention-3 style (sm_90a).
// YOUR TURN: TODOs 1-3, the consumer's arithmetic: the online softmax of a tile, P packed
// into wgmma's A fragments, and O += P V. Given: the producer, the tensor maps, S = Q K^T,
// the schedules that order the consumers' work and the final store (below). Once it is
// correct, try the switches of `Chosen` one at a time and watch the time.
//
// Given, in labs/08-attention/given/ (the skeleton and the solution include the same files):
// fa3_pieces.cuh (the tile sizes, the Schedule switches, the shared storage, the tensor maps,
// the work order, the descriptors and S = Q K^T) and fa3_kernel.cuh (the producer, the
// consumers' schedules, the final store and the launch). The design of the whole rung is
// written at the top of fa3_kernel.cuh.
#include "roofline/contract/attention.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/ptx/wgmma.cuh"
#include "given/wgmma_attention.cuh"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "given/fa3_pieces.cuh"

namespace {

using namespace roofline;

// The schedule this rung launches (stages, overlap, ping-pong, persistent, head-major order;
// then poly-exp quarters and the TMA store of O, both off by default).
using Chosen = Schedule<2, false, false, true, true>;


// O += P V: V's 128 keys are the K index (16 rows = 2048 bytes = 128 units a step), head_dim
// the N. Issued, not committed.
template <int D, int Stages>
__device__ __forceinline__ void issue_pv(float (&out)[D / 2], const std::uint32_t (&p)[8][4],
                                         const Descriptors<D, Stages>& descriptors, int stage) {
    // TODO 3 (O += P V): eight wgmma calls, one per 16 keys (p[step]): mma_m64n128k16_rs_bt
    //   at D = 128, mma_m64n64k16_rs_bt at D = 64 (if constexpr), B's descriptor V's of this
    //   stage (descriptors.v + stage * Descriptors<D, Stages>::kStageUnits) plus 16 rows of V
    //   a step: 2048 bytes, 128 units of the start-address field. No fence, commit or wait
    //   here: the schedules below do those.
    (void)out, (void)p, (void)descriptors, (void)stage;
}

// One consumer thread's rows (two: row0 and row0 + 8) and their running softmax state.
struct SoftmaxRows {
    int first_row, row0, row1, column_in_pair;  // first_row: the work item's first query
    float scale_log2;                 // log2(e) / sqrt(D): exp(x scale) = exp2(x scale_log2)
    float max0, max1, sum0, sum1;     // max in log2 units; sums over this thread's columns only

    // Masks keys past the end and, causal, above the diagonal (only the last tiles need it),
    // then the online softmax of one tile: s becomes exp2(s scale_log2 - max) in place, the
    // sums grow, and rescale0/1 are the factors the output accumulated so far must take.
    // PolyQuarters: of each 4 column pairs, how many take poly_exp2 rather than the SFU (tile_exp2).
    template <int PolyQuarters>
    __device__ __forceinline__ void tile(float (&s)[64], int key0, int seq, bool causal, float& rescale0,
                                         float& rescale1) {
        if (key0 + kBlockK > seq || (causal && key0 + kBlockK - 1 > first_row)) {
#pragma unroll
            for (int j = 0; j < 16; ++j) {
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    const int key = key0 + 8 * j + column_in_pair + e;
                    if (key >= seq || (causal && key > row0)) s[4 * j + e] = -INFINITY;
                    if (key >= seq || (causal && key > row1)) s[4 * j + 2 + e] = -INFINITY;
                }
            }
        }
        // TODO 1 (online softmax): for each of this thread's two rows, the tile's maximum over
        //   the 4 threads that share the row (__shfl_xor_sync 1 and 2), the new running maximum
        //   in log2 units (max0/max1, times scale_log2), the rescale factors exp2(old - new)
        //   (fast_exp2) into rescale0/rescale1 and applied to sum0/sum1 (the output is the
        //   caller's: rescale_out), then s = exp2(s * scale_log2 - new maximum) in place
        //   (tile_exp2<PolyQuarters>(j, ...) for column pair j) and the row sums (s[4j], s[4j+1]:
        //   row0; s[4j+2], s[4j+3]: row1). Careful with a row whose maximum is still -inf. For
        //   speed: keep the chains of dependent fmaxf and additions short (partial maxima and
        //   sums, combined at the end).
        rescale0 = rescale1 = 1.0f;  // TODO 1 replaces this
    }
};

// P's A fragments, one per k16 step over the tile's keys: {s[8t], s[8t+1]}, ... (wgmma_attention.cuh).
__device__ __forceinline__ void pack_p(std::uint32_t (&p)[8][4], const float (&s)[64]) {
    // TODO 2 (P as the A operand): pack s into bf16 pairs (pack_bf16), one uint32_t[4] per k16
    //   step: step t takes s[8t .. 8t+7] as {s[8t], s[8t+1]}, {s[8t+2], s[8t+3]},
    //   {s[8t+4], s[8t+5]}, {s[8t+6], s[8t+7]} (wgmma_attention.cuh explains why no shuffle
    //   is needed).
    (void)p, (void)s;
}
}  // namespace

// The kernel and its launch (given): they call issue_pv, SoftmaxRows::tile and pack_p above
// and launch `Chosen`.
#include "given/fa3_kernel.cuh"

ROOFLINE_ATTENTION_VARIANT(warp_specialized, fa3_attention_launch);
ROOFLINE_ATTENTION_CAUSAL_VARIANT(warp_specialized_causal, fa3_attention_launch);
ROOFLINE_ATTENTION_VARIANT(warp_specialized_16k, fa3_attention_launch);
ROOFLINE_ATTENTION_CAUSAL_VARIANT(warp_specialized_causal_16k, fa3_attention_launch);
