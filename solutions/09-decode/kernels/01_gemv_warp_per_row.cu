// Rung 1: GEMV in bf16, one warp per row of W, 16-byte loads.
// y = W x is one dot product per row: each weight is used once (2 FLOPs per
// 2 bytes, intensity ~1), so the kernel's only job is to read W at the memory
// roof. One warp owns a row: its 32 lanes read 32 consecutive 16-byte pieces
// (512 bytes, fully coalesced), multiply them with the same pieces of x (16 KiB
// at K = 8192, read by every warp and so served from L1/L2), accumulate in fp32,
// and reduce the 32 partial sums with shuffles. Each lane keeps kUnroll loads of
// W in flight before it uses any: at 8 warps per block and ~8 blocks per SM that
// is ~128 KiB per SM in flight, several times what Little's law asks for
// (~4.4 TB/s x ~1 us / 132 SMs ~ 33 KiB).
//
// Prediction at N = K = 8192: 128 MiB of W / ~4.2 TB/s (cudaMemcpy's read+write
// rate) ~ 32 us; a read-only stream can beat the copy's rate, so expect 95-105%
// of cudaMemcpy on W's bytes. The skinny shapes (4096 x 14336, 14336 x 4096) move
// 112 MiB each: ~28 us. 4096 rows of 14336 is the risky one: 4096 warps, 31 per
// SM, each with 28 loads to make.
//
// K not a multiple of 8 leaves rows that do not start 16-byte aligned (row n
// starts at byte 2 n K): those shapes take a scalar loop instead (verify only).
#include "roofline/contract/gemv.cuh"

#include <cstdint>

namespace {

constexpr int kWarpsPerBlock = 8;
constexpr int kUnroll = 4;  // 16-byte loads of W a lane issues before it uses them

__device__ __forceinline__ float bf16_lo(std::uint32_t word) { return __uint_as_float(word << 16); }
__device__ __forceinline__ float bf16_hi(std::uint32_t word) { return __uint_as_float(word & 0xffff0000u); }

// The dot product of 8 bf16 weights with 8 bf16 activations, added to acc.
__device__ __forceinline__ float dot8(uint4 w, uint4 x, float acc) {
    const std::uint32_t ws[4] = {w.x, w.y, w.z, w.w}, xs[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        acc = fmaf(bf16_lo(ws[i]), bf16_lo(xs[i]), acc);
        acc = fmaf(bf16_hi(ws[i]), bf16_hi(xs[i]), acc);
    }
    return acc;
}

// W is read once: load it past L1 ("no allocate") and leave the cache to x.
__device__ __forceinline__ uint4 load_streaming(const uint4* p) {
    uint4 v;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

// Requires K % 8 == 0. Warp w of block b owns row b * kWarpsPerBlock + w.
__global__ __launch_bounds__(kWarpsPerBlock * 32) void gemv_vector_kernel(const __nv_bfloat16* __restrict__ W,
                                                                          const __nv_bfloat16* __restrict__ x,
                                                                          __nv_bfloat16* __restrict__ y, int N, int K) {
    const int lane = threadIdx.x % 32;
    const int row = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32;
    if (row >= N) return;
    const int vecs = K / 8;
    const auto* w4 = reinterpret_cast<const uint4*>(W + std::size_t(row) * K);
    const auto* x4 = reinterpret_cast<const uint4*>(x);
    float acc = 0.0f;
    int v = lane;
    // Whole steps of kUnroll loads per lane, all issued before any is used.
    for (; v + (kUnroll - 1) * 32 < vecs; v += kUnroll * 32) {
        uint4 w[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) w[u] = load_streaming(w4 + v + u * 32);
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) acc = dot8(w[u], __ldg(x4 + v + u * 32), acc);
    }
    for (; v < vecs; v += 32) acc = dot8(load_streaming(w4 + v), __ldg(x4 + v), acc);
    acc = warp_sum(acc);
    if (lane == 0) y[row] = __float2bfloat16(acc);
}

// Any K: one element at a time (rows not 16-byte aligned).
__global__ __launch_bounds__(kWarpsPerBlock * 32) void gemv_scalar_kernel(const __nv_bfloat16* __restrict__ W,
                                                                          const __nv_bfloat16* __restrict__ x,
                                                                          __nv_bfloat16* __restrict__ y, int N, int K) {
    const int lane = threadIdx.x % 32;
    const int row = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32;
    if (row >= N) return;
    const __nv_bfloat16* w = W + std::size_t(row) * K;
    float acc = 0.0f;
    for (int k = lane; k < K; k += 32) acc = fmaf(__bfloat162float(w[k]), __bfloat162float(x[k]), acc);
    acc = warp_sum(acc);
    if (lane == 0) y[row] = __float2bfloat16(acc);
}

void gemv(const __nv_bfloat16* W, const __nv_bfloat16* x, __nv_bfloat16* y, int N, int K, cudaStream_t stream) {
    if (N <= 0 || K <= 0) return;
    const int blocks = (N + kWarpsPerBlock - 1) / kWarpsPerBlock;
    if (K % 8 == 0) gemv_vector_kernel<<<blocks, kWarpsPerBlock * 32, 0, stream>>>(W, x, y, N, K);
    else gemv_scalar_kernel<<<blocks, kWarpsPerBlock * 32, 0, stream>>>(W, x, y, N, K);
}

}  // namespace

ROOFLINE_GEMV_VARIANT(gemv_bf16_8192, gemv);
ROOFLINE_GEMV_VARIANT(gemv_bf16_4096x14336, gemv);
ROOFLINE_GEMV_VARIANT(gemv_bf16_14336x4096, gemv);
