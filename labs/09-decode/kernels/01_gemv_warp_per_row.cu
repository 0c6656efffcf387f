// Rung 1: GEMV in bf16, one warp per row of W, 16-byte loads.   (your file: edit the TODOs)
// y[n] = sum_k W[n][k] x[k], W [N, K] row-major bf16, fp32 accumulation, y rounded
// once to bf16. Each weight is used once: 2 FLOPs per 2 bytes. The kernel's only
// job is to read W at the memory roof, and the grader holds it to cudaMemcpy
// moving W's bytes in the same run.
//
// Predict before you grade: W's bytes at N = K = 8192 and the floor in us at
// ~4.2 TB/s; then the risk. How many bytes does each SM need in flight to keep
// HBM busy (Little's law: bandwidth x ~1 us latency, shared by 132 SMs), and how
// many does your kernel have: warps per SM x 32 lanes x loads in flight x 16 bytes?
// The shapes 4096 x 14336 and 14336 x 4096 move the same bytes in different rows.
#include "roofline/contract/gemv.cuh"

#include <cstdint>

namespace {

constexpr int kWarpsPerBlock = 8;
[[maybe_unused]] constexpr int kUnroll = 4;  // 16-byte loads of W a lane issues before it uses them

// A bf16 is the top half of an fp32: the low and high bf16 of a 32-bit word as floats.
[[maybe_unused]] __device__ __forceinline__ float bf16_lo(std::uint32_t word) { return __uint_as_float(word << 16); }
[[maybe_unused]] __device__ __forceinline__ float bf16_hi(std::uint32_t word) {
    return __uint_as_float(word & 0xffff0000u);
}

// W is read once: load it past L1 ("no allocate") and leave the cache to x, which every warp reads.
[[maybe_unused]] __device__ __forceinline__ uint4 load_streaming(const uint4* p) {
    uint4 v;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}

// Requires K % 8 == 0 (every row then starts 16-byte aligned). Warp w of block b owns row
// b * kWarpsPerBlock + w.
__global__ __launch_bounds__(kWarpsPerBlock * 32) void gemv_vector_kernel(const __nv_bfloat16* __restrict__ W,
                                                                          const __nv_bfloat16* __restrict__ x,
                                                                          __nv_bfloat16* __restrict__ y, int N, int K) {
    // TODO 1: the warp's row (the comment above: warp w of block b); a warp past N does nothing.
    // TODO 2: the warp's dot product of its row of W with x, in fp32. The whole job is to read W
    //         at the memory roof, so: 16-byte loads (K / 8 vectors a row), spread over the lanes
    //         so that each load instruction of the warp reads consecutive bytes of the row;
    //         kUnroll loads of W in flight per lane before any of them is used (Little's law: the
    //         header's count); W through load_streaming (read once), x through the read-only
    //         cache (every warp reads it). bf16_lo / bf16_hi widen a word's two weights without a
    //         conversion. K / 8 need not be a multiple of the vectors a warp takes per step:
    //         the vectors left after the last whole step still count.
    // TODO 3: the lanes' partial sums into one (a warp reduction, no shared memory), and one
    //         lane writes y[row], rounded once to bf16.
}

// Any K: rows that do not start 16-byte aligned (the verify shapes include K = 4099).
__global__ __launch_bounds__(kWarpsPerBlock * 32) void gemv_scalar_kernel(const __nv_bfloat16* __restrict__ W,
                                                                          const __nv_bfloat16* __restrict__ x,
                                                                          __nv_bfloat16* __restrict__ y, int N, int K) {
    // TODO: the same result for any K, where a row need not start 16-byte aligned: one warp
    //       per row as above, one bf16 at a time, the same reduction and store.
}

void gemv(const __nv_bfloat16* W, const __nv_bfloat16* x, __nv_bfloat16* y, int N, int K, cudaStream_t stream) {
    if (N <= 0 || K <= 0) return;
    const int blocks = (N + kWarpsPerBlock - 1) / kWarpsPerBlock;
    // TODO: the vector kernel whenever its requirement holds, the scalar one otherwise.
    gemv_scalar_kernel<<<blocks, kWarpsPerBlock * 32, 0, stream>>>(W, x, y, N, K);
}

}  // namespace

ROOFLINE_GEMV_VARIANT(gemv_bf16_8192, gemv);
ROOFLINE_GEMV_VARIANT(gemv_bf16_4096x14336, gemv);
ROOFLINE_GEMV_VARIANT(gemv_bf16_14336x4096, gemv);
