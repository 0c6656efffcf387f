// Given code for lab 08's rung 2 (kernels/02_fused.cu): the Tuning (the tiling and the
// schedule choices), exp2 on the special-function unit, the cp.async tile copies and the bf16
// half-word shuffles for V's paired loads. The exercise (the online softmax and the kernel's
// matmuls) is in the kernel file.
#pragma once
#include "roofline/contract/attention.cuh"
#include "roofline/ptx/cp_async.cuh"
#include "roofline/ptx/mma_sync.cuh"

#include <cstdint>

namespace {

using namespace roofline::attention;
using namespace roofline::gemm::mma;

// The work of one block (kWarps warps of kRowTiles 16-row query tiles each, K and V in tiles
// of kKeys keys), the lazy max, V's fragments by paired 32-bit loads (above) or by four
// 16-bit loads, and the blocks an SM the registers are capped for.
template <int kWarpsArg, int kRowTilesArg, int kKeysArg, bool kLazyMaxArg, bool kPairedVArg, int kBlocksPerSmArg>
struct Tuning {
    static constexpr int kWarps = kWarpsArg;
    static constexpr int kRowTiles = kRowTilesArg;  // 16-row query tiles per warp
    static constexpr int kKeys = kKeysArg;          // per K/V tile
    static constexpr bool kLazyMax = kLazyMaxArg;
    static constexpr bool kPairedV = kPairedVArg;
    static constexpr int kBlocksPerSm = kBlocksPerSmArg;
    static constexpr int kQueries = 16 * kRowTiles * kWarps;  // per block
    static constexpr int kThreads = 32 * kWarps;
    static constexpr bool kHoldQ = kRowTiles == 1;  // one row tile: Q's fragments fit in registers
};

constexpr int kPad = 8;  // bf16 elements (16 bytes) after each shared row
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLazyMaxSlack = 8.0f;  // log2 units: P stays <= 2^8 while the max is not raised

// 2^x on the special-function unit, one instruction (exp2f adds a range fix-up around it);
// ex2(-inf) = 0, which the masked scores rely on.
__device__ inline float exp2_approx(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// cp.async of 16 bytes to a shared address; zero-filled (nothing read) when !valid.
__device__ inline void cp_async_16_to(std::uint32_t shared, const void* global, bool valid) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared), "l"(global), "r"(valid ? 16 : 0)
                 : "memory");
}
__device__ inline void cp_async_16_to(std::uint32_t shared, const void* global) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(shared), "l"(global) : "memory");
}

// kRows x D bf16 from global (row-major) into shared rows of D + kPad elements at byte address
// `shared`, rows past `valid` zero-filled. Thread i copies chunk i % (D / 8) of rows
// i / (D / 8) + step * kRowStep: each step's two addresses are the first step's plus a constant.
template <int kRows, int D, int kThreads>
__device__ __forceinline__ void load_tile(std::uint32_t shared, const __nv_bfloat16* global, int valid) {
    constexpr int kStride = D + kPad, kChunks = D / 8, kRowStep = kThreads / kChunks;
    static_assert(kThreads % kChunks == 0 && kRows % kRowStep == 0, "tile copy layout");
    const int row = threadIdx.x / kChunks, chunk = threadIdx.x % kChunks;
    const std::uint32_t dst = shared + 2 * (row * kStride + chunk * 8);
    const __nv_bfloat16* src = global + row * D + chunk * 8;
    if (valid >= kRows) {
#pragma unroll
        for (int step = 0; step < kRows / kRowStep; ++step)
            cp_async_16_to(dst + 2 * step * kRowStep * kStride, src + step * kRowStep * D);
    } else {
#pragma unroll
        for (int step = 0; step < kRows / kRowStep; ++step) {
            const bool inside = row + step * kRowStep < valid;
            cp_async_16_to(dst + 2 * step * kRowStep * kStride, inside ? src + step * kRowStep * D : global, inside);
        }
    }
}

// {lo halves of x, y} or {hi halves}: one PRMT.
__device__ inline std::uint32_t low_halves(std::uint32_t x, std::uint32_t y) { return __byte_perm(x, y, 0x5410); }
__device__ inline std::uint32_t high_halves(std::uint32_t x, std::uint32_t y) { return __byte_perm(x, y, 0x7632); }

}  // namespace
