// Rung 4: weight-only fp8 (e4m3) GEMV: y[n] = scale[n] * sum_k W[n][k] x[k].
// The same bytes as rung 3 (one per weight), so the same floor: ~16 us at
// N = K = 8192. What differs is the format: e4m3 keeps a 3-bit mantissa and an
// exponent, so it follows the weights' spread without a per-channel integer grid,
// and Hopper and Ada (sm_89 and later) convert two of them to a half2 in one
// instruction (cvt.rn.f16x2.e4m3x2; older GPUs get a slower software conversion
// from the same call). Every e4m3 value is exact in fp16 and in fp32, so the
// conversion adds no error: only the fp32 accumulation order and y's rounding do.
//
// Per pair of weights: one cvt to half2, two half-to-float conversions, two FMAs,
// and the bf16 x unpacked (a shift or a mask each). Slightly more work than
// rung 3's byte trick, well inside what the SMs issue at ~4.3 T weights/s.
//
// Prediction at N = K = 8192: ~16 us, 90-100% of cudaMemcpy on the fp8 bytes,
// ~1.9x faster than rung 1.
//
// K not a multiple of 16 leaves rows that do not start 16-byte aligned: scalar loop.
#include "roofline/contract/gemv.cuh"

#include <cuda_fp16.h>

#include <cstdint>

namespace {

constexpr int kWarpsPerBlock = 8;
constexpr int kRowsPerWarp = 2;
constexpr int kUnroll = 4;

__device__ __forceinline__ float bf16_lo(std::uint32_t word) { return __uint_as_float(word << 16); }
__device__ __forceinline__ float bf16_hi(std::uint32_t word) { return __uint_as_float(word & 0xffff0000u); }

__device__ __forceinline__ uint4 load_streaming(const uint4* p) {
    uint4 v;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}

// Two e4m3 weights (the low or high half of a word) as two fp32.
__device__ __forceinline__ float2 e4m3x2_to_float2(std::uint32_t pair) {
    __half2_raw raw = __nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(pair), __NV_E4M3);
    return __half22float2(__half2(raw));
}

// 4 e4m3 weights (one word) times 4 bf16 activations (two words), added to acc.
__device__ __forceinline__ float dot4(std::uint32_t w, std::uint32_t x01, std::uint32_t x23, float acc) {
    const float2 w01 = e4m3x2_to_float2(w & 0xffffu), w23 = e4m3x2_to_float2(w >> 16);
    acc = fmaf(w01.x, bf16_lo(x01), acc);
    acc = fmaf(w01.y, bf16_hi(x01), acc);
    acc = fmaf(w23.x, bf16_lo(x23), acc);
    acc = fmaf(w23.y, bf16_hi(x23), acc);
    return acc;
}

__device__ __forceinline__ float dot16(uint4 w, uint4 xa, uint4 xb, float acc) {
    acc = dot4(w.x, xa.x, xa.y, acc);
    acc = dot4(w.y, xa.z, xa.w, acc);
    acc = dot4(w.z, xb.x, xb.y, acc);
    acc = dot4(w.w, xb.z, xb.w, acc);
    return acc;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

// Requires K % 16 == 0. Warp w of block b owns rows kRowsPerWarp (b kWarpsPerBlock + w) + r.
__global__ __launch_bounds__(kWarpsPerBlock * 32) void gemv_fp8_kernel(const __nv_fp8_e4m3* __restrict__ W,
                                                                       const float* __restrict__ scale,
                                                                       const __nv_bfloat16* __restrict__ x,
                                                                       __nv_bfloat16* __restrict__ y, int N, int K) {
    const int lane = threadIdx.x % 32;
    const int row0 = (blockIdx.x * kWarpsPerBlock + threadIdx.x / 32) * kRowsPerWarp;
    if (row0 >= N) return;
    const int vecs = K / 16;
    const uint4* w4[kRowsPerWarp];
#pragma unroll
    for (int r = 0; r < kRowsPerWarp; ++r)  // a row past N re-reads row0 (L2) and is not stored
        w4[r] = reinterpret_cast<const uint4*>(W + std::size_t(row0 + r < N ? row0 + r : row0) * K);
    const auto* x4 = reinterpret_cast<const uint4*>(x);
    float acc[kRowsPerWarp] = {};
    int v = lane;
    for (; v + (kUnroll - 1) * 32 < vecs; v += kUnroll * 32) {
        uint4 w[kRowsPerWarp][kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
#pragma unroll
            for (int r = 0; r < kRowsPerWarp; ++r) w[r][u] = load_streaming(w4[r] + v + u * 32);
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            const uint4 xa = __ldg(x4 + 2 * (v + u * 32)), xb = __ldg(x4 + 2 * (v + u * 32) + 1);
#pragma unroll
            for (int r = 0; r < kRowsPerWarp; ++r) acc[r] = dot16(w[r][u], xa, xb, acc[r]);
        }
    }
    for (; v < vecs; v += 32) {
        const uint4 xa = __ldg(x4 + 2 * v), xb = __ldg(x4 + 2 * v + 1);
#pragma unroll
        for (int r = 0; r < kRowsPerWarp; ++r) acc[r] = dot16(load_streaming(w4[r] + v), xa, xb, acc[r]);
    }
#pragma unroll
    for (int r = 0; r < kRowsPerWarp; ++r) {
        const float sum = warp_sum(acc[r]);
        if (lane == 0 && row0 + r < N) y[row0 + r] = __float2bfloat16(sum * scale[row0 + r]);
    }
}

__global__ void gemv_fp8_scalar_kernel(const __nv_fp8_e4m3* __restrict__ W, const float* __restrict__ scale,
                                       const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, int N,
                                       int K) {
    const int lane = threadIdx.x % 32;
    const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= N) return;
    float acc = 0.0f;
    for (int k = lane; k < K; k += 32)
        acc = fmaf(static_cast<float>(W[std::size_t(row) * K + k]), __bfloat162float(x[k]), acc);
    acc = warp_sum(acc);
    if (lane == 0) y[row] = __float2bfloat16(acc * scale[row]);
}

void gemv_fp8(const __nv_fp8_e4m3* W, const float* scale, const __nv_bfloat16* x, __nv_bfloat16* y, int N, int K,
              cudaStream_t stream) {
    if (N <= 0 || K <= 0) return;
    if (K % 16 != 0) {
        gemv_fp8_scalar_kernel<<<(N + 7) / 8, 256, 0, stream>>>(W, scale, x, y, N, K);
        return;
    }
    const int rows_per_block = kWarpsPerBlock * kRowsPerWarp;
    gemv_fp8_kernel<<<(N + rows_per_block - 1) / rows_per_block, kWarpsPerBlock * 32, 0, stream>>>(W, scale, x, y, N,
                                                                                                   K);
}

}  // namespace

ROOFLINE_GEMV_FP8_VARIANT(gemv_fp8_8192, gemv_fp8);
ROOFLINE_GEMV_FP8_VARIANT(gemv_fp8_4096x14336, gemv_fp8);
