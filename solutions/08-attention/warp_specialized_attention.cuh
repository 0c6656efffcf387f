// The design of solutions/08-attention/kernels/04_warp_specialized.cu, shared with the lab's open rung
// (kernels/05_open_attention.cu), which reuses it as our reference; each file registers it under its own name.
#pragma once
// Rung 4 (solution): Hopper attention, FlashAttention-3 style (sm_90a).
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
// On an H200 (2026-12-01, scripts/probes/attn4_variants.cu beside cuDNN) the persistent grid
// alone was the fastest row at 4k and 16k, plain and causal; overlap and ping-pong, on top of
// it, cost 1-4%. The head-major order (work_item below) came after that run, from its ncu
// profile, predicted at ~93% of cuDNN at 4k; graded the same day at 99.1% of cuDNN at 4k,
// 101.9% at 16k, 91.9% and 97.7% causal (results/2026-12-01-h200-runs62-65.md). In that
// run's probe no row beat it at 4k by the 1% that would change this line; the polynomial
// exponentials and the TMA store on their own cost 7-20 points.
using Chosen = Schedule<2, false, false, true, true>;


// O += P V: V's 128 keys are the K index (16 rows = 2048 bytes = 128 units a step), head_dim
// the N. Issued, not committed.
template <int D, int Stages>
__device__ __forceinline__ void issue_pv(float (&out)[D / 2], const std::uint32_t (&p)[8][4],
                                         const Descriptors<D, Stages>& descriptors, int stage) {
    const std::uint64_t v_stage = descriptors.v + stage * Descriptors<D, Stages>::kStageUnits;
#pragma unroll
    for (int step = 0; step < 8; ++step) {
        const std::uint64_t v_descriptor = v_stage + step * 128;
        if constexpr (D == 128) wgmma::mma_m64n128k16_rs_bt(out, p[step], v_descriptor);
        else wgmma::mma_m64n64k16_rs_bt(out, p[step], v_descriptor);
    }
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
        // The rows' new maxima, over the 4 threads that share a row. Four partial maxima a row,
        // so that the chain of dependent FMNMX is 6 long, not 17 (the profile's FMNMX waited on
        // each other).
        float max0_parts[4], max1_parts[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            max0_parts[j] = fmaxf(s[4 * j], s[4 * j + 1]);
            max1_parts[j] = fmaxf(s[4 * j + 2], s[4 * j + 3]);
        }
#pragma unroll
        for (int j = 4; j < 16; ++j) {
            max0_parts[j % 4] = fmaxf(max0_parts[j % 4], fmaxf(s[4 * j], s[4 * j + 1]));
            max1_parts[j % 4] = fmaxf(max1_parts[j % 4], fmaxf(s[4 * j + 2], s[4 * j + 3]));
        }
        float tile_max0 = fmaxf(fmaxf(max0_parts[0], max0_parts[1]), fmaxf(max0_parts[2], max0_parts[3]));
        float tile_max1 = fmaxf(fmaxf(max1_parts[0], max1_parts[1]), fmaxf(max1_parts[2], max1_parts[3]));
#pragma unroll
        for (int offset = 1; offset < 4; offset *= 2) {
            tile_max0 = fmaxf(tile_max0, __shfl_xor_sync(0xffffffffu, tile_max0, offset));
            tile_max1 = fmaxf(tile_max1, __shfl_xor_sync(0xffffffffu, tile_max1, offset));
        }
        const float new_max0 = fmaxf(max0, tile_max0 * scale_log2), new_max1 = fmaxf(max1, tile_max1 * scale_log2);
        const float base0 = new_max0 == -INFINITY ? 0.0f : new_max0;  // a row with nothing visible yet
        const float base1 = new_max1 == -INFINITY ? 0.0f : new_max1;
        rescale0 = fast_exp2(max0 - base0), rescale1 = fast_exp2(max1 - base1);
        max0 = new_max0, max1 = new_max1;
        sum0 *= rescale0, sum1 *= rescale1;
        float sum0_parts[4] = {0.0f, 0.0f, 0.0f, 0.0f}, sum1_parts[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
        for (int j = 0; j < 16; ++j) {
            s[4 * j] = tile_exp2<PolyQuarters>(j, s[4 * j] * scale_log2 - base0);  // one FFMA, one MUFU.EX2
            s[4 * j + 1] = tile_exp2<PolyQuarters>(j, s[4 * j + 1] * scale_log2 - base0);
            s[4 * j + 2] = tile_exp2<PolyQuarters>(j, s[4 * j + 2] * scale_log2 - base1);
            s[4 * j + 3] = tile_exp2<PolyQuarters>(j, s[4 * j + 3] * scale_log2 - base1);
            sum0_parts[j % 4] += s[4 * j] + s[4 * j + 1];  // four partial sums: short FADD chains
            sum1_parts[j % 4] += s[4 * j + 2] + s[4 * j + 3];
        }
        sum0 += (sum0_parts[0] + sum0_parts[1]) + (sum0_parts[2] + sum0_parts[3]);
        sum1 += (sum1_parts[0] + sum1_parts[1]) + (sum1_parts[2] + sum1_parts[3]);
    }
};

// P's A fragments, one per k16 step over the tile's keys: {s[8t], s[8t+1]}, ... (wgmma_attention.cuh).
__device__ __forceinline__ void pack_p(std::uint32_t (&p)[8][4], const float (&s)[64]) {
#pragma unroll
    for (int step = 0; step < 8; ++step) {
        p[step][0] = pack_bf16(s[8 * step], s[8 * step + 1]);
        p[step][1] = pack_bf16(s[8 * step + 2], s[8 * step + 3]);
        p[step][2] = pack_bf16(s[8 * step + 4], s[8 * step + 5]);
        p[step][3] = pack_bf16(s[8 * step + 6], s[8 * step + 7]);
    }
}
}  // namespace

// The kernel and its launch (given): they call issue_pv, SoftmaxRows::tile and pack_p above
// and launch `Chosen`.
#include "given/fa3_kernel.cuh"

