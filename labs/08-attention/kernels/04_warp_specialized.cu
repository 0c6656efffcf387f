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


// O += P V: V's 128 keys are the K index, head_dim the N. Issued, not committed.
template <int D, int Stages>
__device__ __forceinline__ void issue_pv(float (&out)[D / 2], const std::uint32_t (&p)[8][4],
                                         const Descriptors<D, Stages>& descriptors, int stage) {
    // TODO 3 (O += P V): out (64 queries x D columns, accumulating) += P (64 x 128 keys, in
    //   registers: p, one A fragment per 16 keys) times this stage's V tile (128 keys x D, in
    //   shared memory, N-major). The reduction runs over keys, 16 a wgmma, so the tile is a
    //   chain of wgmmas into the same accumulators, each with A from registers and B described
    //   by V's descriptor (descriptors.v is stage 0's first 16 keys). Move it as
    //   issue_scores in fa3_pieces.cuh moves K's: by offsets in the start-address field (16-byte
    //   units), one stage's worth a stage and 16 keys' worth a step (wgmma_attention.cuh's
    //   descriptor comment gives the bytes). The wgmma's N is D (wgmma_attention.cuh has one
    //   for each head_dim the lab runs). No fence, commit or wait here: the schedules in
    //   fa3_kernel.cuh do those, and a wait here would undo their overlap.
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
        // TODO 1 (online softmax, lesson 08 section 3): leave, for each of this thread's two rows
        //   (which of s's accumulators belong to which row: mma_m64n128k16_ss's comment in
        //   wgmma_attention.cuh):
        //   - max0/max1: the row's running max in log2 units (raw score times scale_log2), over
        //     the whole row, whose scores are spread over the threads that share it, so every
        //     one of them must end with the same value;
        //   - rescale0/rescale1: the factor that brings sums taken against the old max to the
        //     new one, applied here to sum0/sum1 (the caller applies it to the output:
        //     rescale_out); 1 when the max did not move;
        //   - s: P = 2^(score scale_log2 - max) in place, each exponential by tile_exp2, which
        //     chooses the unit per column pair (PolyQuarters); sum0/sum1 grown by this
        //     thread's part of each row's sum.
        //   Hazard: a row that has seen only masked keys still has max -inf, and -inf - -inf is
        //   NaN, in the rescale factor and in P's exponent alike; such a row must leave P = 0,
        //   its sum 0 and the output as it is (section 3's empty-row rule).
        //   Speed: the softmax sits on the consumer's critical path between two wgmmas. A max
        //   or a sum taken in one chain of dependent instructions waits a latency per element;
        //   independent partial results, combined at the end, do not.
        rescale0 = rescale1 = 1.0f;  // TODO 1 replaces this
    }
};

// P's A fragments, one per k16 step over the tile's keys (wgmma_attention.cuh).
__device__ __forceinline__ void pack_p(std::uint32_t (&p)[8][4], const float (&s)[64]) {
    // TODO 2 (P as the A operand): p[step] is the A fragment of the P V wgmma for keys
    //   16 step .. 16 step + 15, in bf16 (pack_bf16 rounds a pair of them into one register).
    //   What makes it cheap: the scores' fp32 accumulator layout and the register layout of
    //   wgmma's A operand match, so every value this thread needs is already one of its own
    //   scores: no shuffle, only the right pairs in the right order (wgmma_attention.cuh's
    //   head sets the two layouts side by side).
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
