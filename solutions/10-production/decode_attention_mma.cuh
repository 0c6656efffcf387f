// The arithmetic of the ring kernel (decode_attention_ring.cuh) on the tensor cores: the group's
// 4 query heads are the rows of an m16n8k16 `mma` (12 of its 16 rows zero), so a warp scores 16
// cached positions in 16 mma instructions and sums 16 weighted value rows in 32 more (16 for an
// e4m3 cache), where the lane-group form spends about 50 instructions a position on FMAs, shuffles
// and widening. The
// profile that asked for it: the lane-group kernel issued 0.47 instructions a cycle per scheduler
// from 8 warps an SM with DRAM at 67% (batch 1, 32k), and an e4m3 cache, twice the positions per
// byte, at 53%.
//
// A warp takes 16 positions at a time (its share of a tile, warp w from position 16w, stepping by
// 16 x warps) and keeps, per lane, one head's running max and sum and 32 of its output columns:
//
// - Scores, S = Q K^T: A = the queries (row h = head h of the group), B = the K rows as its
//   columns (m16n8k16's B is "col": column n is K row n, contiguous in shared memory as the ring
//   holds it). The sum over k is the same in any order of the 128 dimensions, so lane (g, t)
//   (g = lane / 4, t = lane % 4) takes whole 16-byte pieces of its row, pieces t, t + 4, ...,
//   and the queries are laid out in the same order: one LDS.128 feeds 2 (bf16) or 4 (e4m3) of
//   the 8 k steps. Two rows 256 bytes apart share banks: a 2-way conflict, accepted.
// - Weights, P = 2^(S - max), straight from S's accumulators: lane (g, t) holds S[g][2t, 2t+1] of
//   each 8-position half, which is m16n8k16's A fragment for k = the chunk's 16 positions.
// - Outputs, O += P V: B = V (k = positions, n = 8 dimensions a tile, 16 tiles). Lane (g, t)
//   feeds column g of every tile, so it owns dimensions 16g .. 16g + 15 (tile j's column g is
//   dimension 16g + j) and reads them from 4 rows (positions 2t, 2t+1, 2t+8, 2t+9), then pairs
//   the two positions of each dimension into one register (a byte permute). Rows 256 bytes apart
//   again: lanes g and g + 4 ... share banks, a 4-way conflict on these loads, accepted (the
//   tensor cores leave the issue slots free for it).
// - An e4m3 cache: K and V bytes widen to fp16 pairs (one cvt per pair) and the mma runs in fp16;
//   the queries, fp16 too (exact for bf16 values in fp16's range). A bf16 cache: bf16 mma, the
//   queries as they are, and each weight as two bf16 (its rounding and the remainder) in two mma:
//   one bf16 weight, 8 bits, is not enough where a few positions average.
// - The online softmax per 16 positions: the chunk's max over the 4 lanes of a head (two
//   shuffles); the outputs are rescaled only when some head's max grew (a warp vote).
#pragma once
#include "roofline/ptx/mma_sync.cuh"

#include "given/decode_attention_helpers.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>

namespace {
namespace ring_mma {

namespace mma = roofline::gemm::mma;

// What a cache element sets: the mma's input type and how a row's bytes become its pairs.
template <class Element>
struct Operand;
template <>
struct Operand<__nv_bfloat16> {
    static constexpr int kDimsPerPiece = 8;  // 16 bytes of a row
    __device__ static std::uint32_t pack(float lo, float hi) {
        const __nv_bfloat162 two = __floats2bfloat162_rn(lo, hi);
        return *reinterpret_cast<const std::uint32_t*>(&two);
    }
    __device__ static void mma(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0, std::uint32_t b1) {
        mma::mma_bf16_16816(d, a, b0, b1);
    }
    // bf16 keeps 8 bits of a weight: each weight goes to the mma as two bf16, its rounding and
    // what the rounding lost, in two mma (the tensor cores have the time; see `chunk`).
    static constexpr bool kSplitWeights = true;
    __device__ static float2 unpack(std::uint32_t pair) {
        return make_float2(__uint_as_float(pair << 16), __uint_as_float(pair & 0xFFFF0000u));
    }
    // Dimensions 4e .. 4e + 3 of a piece as two pairs: already pairs of bf16.
    __device__ static void k_pairs(const uint4& piece, int e, std::uint32_t& lo, std::uint32_t& hi) {
        const std::uint32_t words[4] = {piece.x, piece.y, piece.z, piece.w};
        lo = words[2 * e], hi = words[2 * e + 1];
    }
};
template <>
struct Operand<std::uint8_t> {  // e4m3 bytes
    static constexpr int kDimsPerPiece = 16;
    __device__ static std::uint32_t pack(float lo, float hi) {
        const __half2 two = __floats2half2_rn(lo, hi);
        return *reinterpret_cast<const std::uint32_t*>(&two);
    }
    __device__ static void mma(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0, std::uint32_t b1) {
        mma::mma_f16_16816(d, a, b0, b1);
    }
    static constexpr bool kSplitWeights = false;  // fp16 keeps 11 bits of a weight
    __device__ static float2 unpack(std::uint32_t pair) { return __half22float2(*reinterpret_cast<const __half2*>(&pair)); }
    __device__ static std::uint32_t widen2(std::uint32_t two_bytes) {  // the low 2 bytes: 2 e4m3 -> fp16 pair
        const __half2_raw h = __nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t(two_bytes & 0xFFFFu), __NV_E4M3);
        return std::uint32_t(h.x) | (std::uint32_t(h.y) << 16);
    }
    __device__ static void k_pairs(const uint4& piece, int e, std::uint32_t& lo, std::uint32_t& hi) {
        const std::uint32_t words[4] = {piece.x, piece.y, piece.z, piece.w};
        lo = widen2(words[e]), hi = widen2(words[e] >> 16);
    }
};

// One warp's share of a block's (sequence, KV head): kWarps warps each keep one of these, and
// each is one partial of the block's merge.
template <class Element, int kWarps>
struct WarpTensorCores {
    using Op = Operand<Element>;
    static constexpr int kGroups = kWarps;                              // partials a block merges
    static constexpr int kStepsPerPiece = Op::kDimsPerPiece / 4;        // k steps one 16-byte piece feeds
    static constexpr int kPiecesPerLane = 8 / kStepsPerPiece;           // of the 8 k steps over 128
    static constexpr int kOutTiles = kHeadDim / 8;                      // n tiles of P V
    static_assert(kGroup == 4, "the group's 4 heads are rows 0-3 of the mma");

    int g, t;                      // lane / 4 (the head this lane's rows are), lane % 4
    std::uint32_t q[8][2];         // A fragments of the scores: [k step][a[0], a[2]]; rows 4-15 zero
    float o[kOutTiles][4];         // P V accumulators: [tile j][dims 32t + j, 32t + 16 + j, rows g + 8 (zero)]
    float m, l;                    // head g's running max (log2 units) and this lane's part of its sum
    float score_scale;             // softmax scale x log2(e) (x an e4m3 cache's key scale)

    // The first dimension of k step kk's pair `half` (0: a[0]/b0, 1: a[2]/b1) for this lane.
    __device__ int dim(int kk, int half) const {
        const int piece = (kk / kStepsPerPiece) * 4 + t;
        return piece * Op::kDimsPerPiece + (kk % kStepsPerPiece) * 4 + half * 2;
    }

    // queries: the group's 4 rows of 128 (bf16), row h at queries + h x 128.
    __device__ void start(const __nv_bfloat16* queries, float scale) {
        const int lane = threadIdx.x % 32;
        g = lane / 4, t = lane % 4;
        score_scale = scale;
#pragma unroll
        for (int kk = 0; kk < 8; ++kk)
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                float lo = 0, hi = 0;
                if (g < kGroup) {
                    const __nv_bfloat162 two =
                        *reinterpret_cast<const __nv_bfloat162*>(queries + g * kHeadDim + dim(kk, half));
                    lo = __bfloat162float(two.x), hi = __bfloat162float(two.y);
                }
                q[kk][half] = Op::pack(lo, hi);
            }
#pragma unroll
        for (int j = 0; j < kOutTiles; ++j) o[j][0] = o[j][1] = o[j][2] = o[j][3] = 0;
        m = -INFINITY, l = 0;
    }

    // The tile's first `rows` positions (K rows at k_tile, V rows at v_tile, 128 values each).
    __device__ void consume(const Element* k_tile, const Element* v_tile, int rows) {
        const int warp = threadIdx.x / 32;
        for (int p0 = warp * 16; p0 < rows; p0 += kWarps * 16) chunk(k_tile, v_tile, p0, rows);
    }

    __device__ void chunk(const Element* k_tile, const Element* v_tile, int p0, int rows) {
        // Scores of positions p0 + 8j + n, n = 0..7: this lane feeds column g (K row p0 + 8j + g).
        float s[2][4];
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0;
            const Element* k_row = k_tile + (p0 + 8 * j + g) * kHeadDim;  // inside the stage; past `rows`, masked below
#pragma unroll
            for (int c = 0; c < kPiecesPerLane; ++c) {
                const uint4 piece = *reinterpret_cast<const uint4*>(k_row + (4 * c + t) * Op::kDimsPerPiece);
#pragma unroll
                for (int e = 0; e < kStepsPerPiece; ++e) {
                    const int kk = c * kStepsPerPiece + e;
                    std::uint32_t b0, b1;
                    Op::k_pairs(piece, e, b0, b1);
                    const std::uint32_t a[4] = {q[kk][0], 0u, q[kk][1], 0u};
                    Op::mma(s[j], a, b0, b1);
                }
            }
        }
        // Scaled, positions past the tile's rows at -inf; the chunk's max of head g over its 4 lanes.
        float top = -INFINITY;
#pragma unroll
        for (int j = 0; j < 2; ++j)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                const bool here = p0 + 8 * j + 2 * t + e < rows;
                s[j][e] = here ? s[j][e] * score_scale : -INFINITY;
                top = fmaxf(top, s[j][e]);
            }
        top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, 1));
        top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, 2));  // finite: position p0 is in the tile
        if (__any_sync(0xffffffffu, top > m)) {
            const float grown = fmaxf(m, top);
            const float scale = fast_exp2(m - grown);  // 0 the first time (m = -inf), 1 where m held
#pragma unroll
            for (int j = 0; j < kOutTiles; ++j) o[j][0] *= scale, o[j][1] *= scale;
            l *= scale;
            m = grown;
        }
        // The weights (0 past the rows) as the mma's A fragment; in bf16 also what rounding them
        // lost, as a second fragment for a second mma with the same values: a bf16 weight alone
        // (8 bits) put an element past the lab's tolerance where few positions average (run 113,
        // 1 of 262,144 at batch 64, 1 to 1,000 positions).
        float p[2][2];
#pragma unroll
        for (int j = 0; j < 2; ++j)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                p[j][e] = fast_exp2(s[j][e] - m);
                l += p[j][e];
            }
        const std::uint32_t a[4] = {Op::pack(p[0][0], p[0][1]), 0u, Op::pack(p[1][0], p[1][1]), 0u};
        std::uint32_t lost[4] = {0u, 0u, 0u, 0u};
        if constexpr (Op::kSplitWeights) {
#pragma unroll
            for (int j = 0; j < 2; ++j) {
                const float2 kept = Op::unpack(a[2 * j]);
                lost[2 * j] = Op::pack(p[j][0] - kept.x, p[j][1] - kept.y);
            }
        }
        auto weigh = [&](float (&acc)[4], std::uint32_t b0, std::uint32_t b1) {
            Op::mma(acc, a, b0, b1);
            if constexpr (Op::kSplitWeights) Op::mma(acc, lost, b0, b1);
        };

        // Values: rows p0 + 2t, 2t + 1 (b0) and 2t + 8, 2t + 9 (b1), dimensions 16g .. 16g + 15;
        // a row past the tile's rows is zero (its weight is 0, but 0 x NaN is not).
        const int value_rows[4] = {p0 + 2 * t, p0 + 2 * t + 1, p0 + 2 * t + 8, p0 + 2 * t + 9};
        if constexpr (sizeof(Element) == 2) {
            std::uint32_t w[4][8];  // [row][pair i: dimensions 16g + 2i, 2i + 1]
#pragma unroll
            for (int r = 0; r < 4; ++r) {
                const bool here = value_rows[r] < rows;
                const uint4* at = reinterpret_cast<const uint4*>(v_tile + value_rows[r] * kHeadDim + 16 * g);
                const uint4 lo = here ? at[0] : make_uint4(0, 0, 0, 0), hi = here ? at[1] : make_uint4(0, 0, 0, 0);
                w[r][0] = lo.x, w[r][1] = lo.y, w[r][2] = lo.z, w[r][3] = lo.w;
                w[r][4] = hi.x, w[r][5] = hi.y, w[r][6] = hi.z, w[r][7] = hi.w;
            }
#pragma unroll
            for (int i = 0; i < 8; ++i) {
                // Tile 2i: the low halves (dimension 16g + 2i) of two rows; tile 2i + 1: the high halves.
                weigh(o[2 * i], __byte_perm(w[0][i], w[1][i], 0x5410), __byte_perm(w[2][i], w[3][i], 0x5410));
                weigh(o[2 * i + 1], __byte_perm(w[0][i], w[1][i], 0x7632), __byte_perm(w[2][i], w[3][i], 0x7632));
            }
        } else {
            std::uint32_t w[4][4];  // [row][word i: dimensions 16g + 4i .. 4i + 3]
#pragma unroll
            for (int r = 0; r < 4; ++r) {
                const bool here = value_rows[r] < rows;
                const uint4 piece = here ? *reinterpret_cast<const uint4*>(v_tile + value_rows[r] * kHeadDim + 16 * g)
                                         : make_uint4(0, 0, 0, 0);
                w[r][0] = piece.x, w[r][1] = piece.y, w[r][2] = piece.z, w[r][3] = piece.w;
            }
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                // Bytes e of two rows side by side, then widened: dimensions 4i + e, e = 0..3.
                const std::uint32_t first01 = __byte_perm(w[0][i], w[1][i], 0x5140), first23 = __byte_perm(w[0][i], w[1][i], 0x7362);
                const std::uint32_t second01 = __byte_perm(w[2][i], w[3][i], 0x5140), second23 = __byte_perm(w[2][i], w[3][i], 0x7362);
                weigh(o[4 * i + 0], Op::widen2(first01), Op::widen2(second01));
                weigh(o[4 * i + 1], Op::widen2(first01 >> 16), Op::widen2(second01 >> 16));
                weigh(o[4 * i + 2], Op::widen2(first23), Op::widen2(second23));
                weigh(o[4 * i + 3], Op::widen2(first23 >> 16), Op::widen2(second23 >> 16));
            }
        }
    }

    // This warp's partial into the block's merge: group_out[warp][head][128], its max and sum.
    __device__ void store(float* group_out, float (*group_max)[kGroup], float (*group_sum)[kGroup]) const {
        const int group = threadIdx.x / 32;
        float sum = l;
        sum += __shfl_xor_sync(0xffffffffu, sum, 1);
        sum += __shfl_xor_sync(0xffffffffu, sum, 2);
        if (g >= kGroup) return;
        float* row = group_out + (group * kGroup + g) * kHeadDim;
#pragma unroll
        for (int j = 0; j < kOutTiles; ++j) row[32 * t + j] = o[j][0], row[32 * t + 16 + j] = o[j][1];
        if (t == 0) group_max[group][g] = m, group_sum[group][g] = sum;
    }
};

}  // namespace ring_mma
}  // namespace
