// Given code for lab 08's rung 3 (kernels/03_pipelined.cu): the Tuning (the tiling and the
// schedule choices), exp2 on the special-function unit, the cp.async tile copies into the
// swizzled tiles and the online softmax of a tile. The exercise (the swizzle, the ldmatrix
// addresses and the double buffer's next copies) is in the kernel file.
#pragma once
#include "roofline/contract/attention.cuh"
#include "roofline/ptx/cp_async.cuh"
#include "roofline/ptx/mma_sync.cuh"

#include <cstdint>

namespace {

using namespace roofline::attention;
using namespace roofline::gemm::mma;

// The work of one block (kWarps warps of kRowTiles 16-row query tiles each, K and V in tiles of
// kKeys keys) and two schedule choices: the lazy max (above) and prefetched fragments (each
// ldmatrix issued one MMA step ahead of the MMAs that read it, into a second set of registers).
template <int kWarpsArg, int kRowTilesArg, int kKeysArg, bool kLazyMaxArg = true, bool kPrefetchArg = false>
struct Tuning {
    static constexpr int kWarps = kWarpsArg;
    static constexpr int kRowTiles = kRowTilesArg;  // 16-row query tiles per warp
    static constexpr int kKeys = kKeysArg;          // per K/V tile
    static constexpr bool kLazyMax = kLazyMaxArg;
    static constexpr bool kPrefetch = kPrefetchArg;
    static constexpr int kQueries = 16 * kRowTiles * kWarps;  // per block
    static constexpr int kThreads = 32 * kWarps;
};

constexpr int kStages = 2;
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLazyMaxSlack = 8.0f;  // log2 units: P stays <= 2^8 while the max is not raised

// 2^x on the special-function unit, one instruction (exp2f adds a range fix-up around it);
// ex2(-inf) = 0, which the masked scores rely on.
__device__ inline float exp2_approx(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// The swizzle is the kernel file's (its TODO(1)); load_tile below stores through it.
template <int D>
__device__ inline int swizzled(int row, int chunk);

// cp.async of 16 bytes to a shared address; zero-filled (nothing read) when !valid.
__device__ inline void cp_async_16_to(std::uint32_t shared, const void* global, bool valid) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared), "l"(global), "r"(valid ? 16 : 0)
                 : "memory");
}
__device__ inline void cp_async_16_to(std::uint32_t shared, const void* global) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(shared), "l"(global) : "memory");
}

// kRows x D bf16 from global into the swizzled shared tile at byte address `shared`, rows past
// `valid` zero-filled. Thread i copies chunk i % (D / 8) of rows i / (D / 8) + step * kRowStep;
// kRowStep is a multiple of 8, so the swizzle (row % 8) is the same on every step and each
// step's two addresses are the first step's plus a constant.
template <int kRows, int D, int kThreads>
__device__ __forceinline__ void load_tile(std::uint32_t shared, const __nv_bfloat16* global, int valid) {
    constexpr int kChunks = D / 8, kRowStep = kThreads / kChunks;
    static_assert(kThreads % kChunks == 0 && kRowStep % 8 == 0 && kRows % kRowStep == 0, "tile copy layout");
    const int row = threadIdx.x / kChunks, chunk = threadIdx.x % kChunks;
    const std::uint32_t dst = shared + 2 * swizzled<D>(row, chunk);
    const __nv_bfloat16* src = global + row * D + chunk * 8;
    if (valid >= kRows) {
#pragma unroll
        for (int step = 0; step < kRows / kRowStep; ++step)
            cp_async_16_to(dst + 2 * step * kRowStep * D, src + step * kRowStep * D);
    } else {
#pragma unroll
        for (int step = 0; step < kRows / kRowStep; ++step) {
            const bool inside = row + step * kRowStep < valid;
            cp_async_16_to(dst + 2 * step * kRowStep * D, inside ? src + step * kRowStep * D : global, inside);
        }
    }
}

// The online softmax on one tile of raw scores s (rows row0 + 16 mt + 8 r): mask (kMask only),
// running max, rescale of the running sum and the output accumulators where the max rose,
// s := P = exp2(s * scale - max * scale), summed into row_sum (this thread's part of each row).
template <bool kMask, bool kLazyMax, int kRowTiles, int kKeys, int D>
__device__ __forceinline__ void softmax_tile(float (&s)[kRowTiles][kKeys / 8][4], float (&acc)[kRowTiles][D / 8][4],
                                             float (&row_max)[kRowTiles][2], float (&row_sum)[kRowTiles][2],
                                             int row0, int col0, int seq, bool causal, float scale_log2) {
    float tile_max[kRowTiles][2];
    bool rises = false;  // some row of this thread's needs its max raised
#pragma unroll
    for (int mt = 0; mt < kRowTiles; ++mt) {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            float m = -INFINITY;
#pragma unroll
            for (int n = 0; n < kKeys / 8; ++n) {
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    if constexpr (kMask) {
                        const int col = col0 + n * 8 + e, row = row0 + 16 * mt + 8 * r;
                        if (col >= seq || (causal && col > row)) s[mt][n][2 * r + e] = -INFINITY;
                    }
                    m = fmaxf(m, s[mt][n][2 * r + e]);
                }
            }
            m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 1));
            m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 2));
            tile_max[mt][r] = m;
            // -inf - -inf is NaN, which compares false: a row with nothing visible yet stays put.
            if (kLazyMax) rises = rises || (m - row_max[mt][r]) * scale_log2 > kLazyMaxSlack;
        }
    }
    // The warp rescales together (one vote), so the branch never splits it.
    if (!kLazyMax || __any_sync(0xffffffffu, rises)) {
#pragma unroll
        for (int mt = 0; mt < kRowTiles; ++mt) {
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const float new_max = fmaxf(row_max[mt][r], tile_max[mt][r]);
                // A row with nothing visible yet keeps max -inf: subtract 0 then, not -inf (NaN).
                const float base = new_max == -INFINITY ? 0.0f : new_max * scale_log2;
                const float correction = exp2_approx(row_max[mt][r] * scale_log2 - base);
                row_max[mt][r] = new_max;
                row_sum[mt][r] *= correction;
#pragma unroll
                for (int n = 0; n < D / 8; ++n) {
                    acc[mt][n][2 * r] *= correction;
                    acc[mt][n][2 * r + 1] *= correction;
                }
            }
        }
    }
#pragma unroll
    for (int mt = 0; mt < kRowTiles; ++mt) {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            const float base = row_max[mt][r] == -INFINITY ? 0.0f : row_max[mt][r] * scale_log2;
#pragma unroll
            for (int n = 0; n < kKeys / 8; ++n) {
                s[mt][n][2 * r] = exp2_approx(fmaf(s[mt][n][2 * r], scale_log2, -base));
                s[mt][n][2 * r + 1] = exp2_approx(fmaf(s[mt][n][2 * r + 1], scale_log2, -base));
                row_sum[mt][r] += s[mt][n][2 * r] + s[mt][n][2 * r + 1];
            }
        }
    }
}

}  // namespace
