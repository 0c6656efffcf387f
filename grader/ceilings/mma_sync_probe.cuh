// The mma.sync ceiling: bf16 m16n8k16 tensor-core MMAs (fp32 accumulate) issued by warps
// from registers alone, with nothing loaded from memory. It is the roof of every kernel
// built on the warp-level instruction (lab 03's rungs 8 and 9, lab 08's FlashAttention-2
// rungs), which on Hopper sits well below the roof of wgmma, the warpgroup instruction that
// reads its operands from shared memory (cuBLAS's bf16 GEMM).
//
// Each warp keeps kMmaChains independent accumulators so that one MMA's latency is hidden
// behind the others; the operands are fixed non-zero bit patterns (tensor cores run faster
// on zeros). PTX ISA: "Warp-level matrix multiply-accumulate instructions: mma" (.m16n8k16,
// .bf16, sm_80 and later).
#pragma once
#include <cstdint>

namespace roofline::ceilings {

constexpr int kMmaChains = 8;
constexpr int kMmaIterations = 8192;
constexpr double kMmaFlops = 2.0 * 16 * 8 * 16;  // one m16n8k16

__global__ void __launch_bounds__(256) mma_sync_kernel(std::uint32_t seed, float* sink) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    // bf16 pairs near 1.0 (0x3F80 = 1.0), different per lane: never zero, never overflowing
    // over 64k fp32 additions.
    const std::uint32_t pattern = 0x3F803F80u ^ ((seed + threadIdx.x) & 0x007F007Fu);
    const std::uint32_t a0 = pattern, a1 = pattern ^ 0x00010000u, a2 = pattern ^ 0x1u, a3 = pattern ^ 0x00010001u;
    const std::uint32_t b0 = pattern ^ 0x00020002u, b1 = pattern ^ 0x00020000u;
    float d[kMmaChains][4] = {};
    for (int i = 0; i < kMmaIterations; ++i) {
#pragma unroll
        for (int c = 0; c < kMmaChains; ++c) {
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                         "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                         : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
                         : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        }
    }
    float total = 0;
#pragma unroll
    for (int c = 0; c < kMmaChains; ++c) total += d[c][0] + d[c][1] + d[c][2] + d[c][3];
    if (total == 12345.0f) sink[0] = total;  // never true; keeps the MMAs
#else
    (void)seed, (void)sink;
#endif
}

// FLOPs of one launch of `blocks` blocks of 256 threads (8 warps each).
inline double mma_sync_flops(int blocks) { return kMmaFlops * kMmaChains * kMmaIterations * blocks * 8.0; }

}  // namespace roofline::ceilings
