// Rung 3: weight-only int8 GEMV: y[n] = scale[n] * sum_k W[n][k] x[k], W int8.
// Quantization is a byte lever: the same N x K weights in 1 byte each instead of
// 2, so at the same bandwidth the kernel should take half of rung 1's time (~16 us
// at N = K = 8192, 64 MiB). x stays bf16 and the arithmetic stays fp32; the
// per-channel scale is applied once, to the finished sum.
//
// The new cost is the dequantization: 16 weights per 16-byte load, each turned into
// an fp32 before its FMA, at twice rung 1's weights per second. A plain int-to-float
// conversion (I2F) runs at a quarter of the FMA rate on Hopper and would become the
// bound. Instead: flip each byte's sign bit (w + 128, unsigned), put the byte under
// the exponent of 2^23 with one byte permute (the float 2^23 + w + 128), and subtract
// 2^23 + 128: exact, and two cheap instructions per weight. Each warp owns two rows,
// so every 16-byte piece of x it loads serves 32 weights.
//
// Prediction at N = K = 8192: 64 MiB / ~4.2 TB/s ~ 16 us, 90-100% of cudaMemcpy on
// the int8 bytes, ~1.9x faster than rung 1. The risk is issue rate: ~4 instructions
// per weight at ~4.3 T weights/s is about half of what the SMs can issue.
//
// K not a multiple of 16 leaves rows that do not start 16-byte aligned: scalar loop.
#include "roofline/contract/gemv.cuh"

#include <cstdint>

namespace {

constexpr int kWarpsPerBlock = 8;
constexpr int kRowsPerWarp = 2;
constexpr int kUnroll = 4;  // 16-byte loads per row a lane issues before it uses them

__device__ __forceinline__ float bf16_lo(std::uint32_t word) { return __uint_as_float(word << 16); }
__device__ __forceinline__ float bf16_hi(std::uint32_t word) { return __uint_as_float(word & 0xffff0000u); }

__device__ __forceinline__ uint4 load_streaming(const uint4* p) {
    uint4 v;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}

// Byte i of a word of 4 int8 weights whose sign bits were flipped, as an exact fp32.
template <int i>
__device__ __forceinline__ float int8_at(std::uint32_t flipped) {
    return __uint_as_float(__byte_perm(flipped, 0x4B000000u, 0x7440 + i)) - 8388736.0f;  // 2^23 + 128
}

// 4 int8 weights (one word) times 4 bf16 activations (two words), added to acc.
__device__ __forceinline__ float dot4(std::uint32_t w, std::uint32_t x01, std::uint32_t x23, float acc) {
    const std::uint32_t flipped = w ^ 0x80808080u;
    acc = fmaf(int8_at<0>(flipped), bf16_lo(x01), acc);
    acc = fmaf(int8_at<1>(flipped), bf16_hi(x01), acc);
    acc = fmaf(int8_at<2>(flipped), bf16_lo(x23), acc);
    acc = fmaf(int8_at<3>(flipped), bf16_hi(x23), acc);
    return acc;
}

// 16 weights times the 16 activations in xa (the first 8) and xb (the next 8).
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
__global__ __launch_bounds__(kWarpsPerBlock * 32) void gemv_int8_kernel(const std::int8_t* __restrict__ W,
                                                                        const float* __restrict__ scale,
                                                                        const __nv_bfloat16* __restrict__ x,
                                                                        __nv_bfloat16* __restrict__ y, int N, int K) {
    const int lane = threadIdx.x % 32;
    const int row0 = (blockIdx.x * kWarpsPerBlock + threadIdx.x / 32) * kRowsPerWarp;
    if (row0 >= N) return;
    const int vecs = K / 16;  // uint4 of weights per row
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

// Any K: one element at a time, one warp per row.
__global__ void gemv_int8_scalar_kernel(const std::int8_t* __restrict__ W, const float* __restrict__ scale,
                                        const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, int N,
                                        int K) {
    const int lane = threadIdx.x % 32;
    const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= N) return;
    float acc = 0.0f;
    for (int k = lane; k < K; k += 32) acc = fmaf(float(W[std::size_t(row) * K + k]), __bfloat162float(x[k]), acc);
    acc = warp_sum(acc);
    if (lane == 0) y[row] = __float2bfloat16(acc * scale[row]);
}

void gemv_int8(const std::int8_t* W, const float* scale, const __nv_bfloat16* x, __nv_bfloat16* y, int N, int K,
               cudaStream_t stream) {
    if (N <= 0 || K <= 0) return;
    if (K % 16 != 0) {
        gemv_int8_scalar_kernel<<<(N + 7) / 8, 256, 0, stream>>>(W, scale, x, y, N, K);
        return;
    }
    const int rows_per_block = kWarpsPerBlock * kRowsPerWarp;
    gemv_int8_kernel<<<(N + rows_per_block - 1) / rows_per_block, kWarpsPerBlock * 32, 0, stream>>>(W, scale, x, y,
                                                                                                    N, K);
}

}  // namespace

ROOFLINE_GEMV_INT8_VARIANT(gemv_int8_8192, gemv_int8);
ROOFLINE_GEMV_INT8_VARIANT(gemv_int8_4096x14336, gemv_int8);
