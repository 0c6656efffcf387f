// Rung 4: RMSNorm fused into one pass: one block per row, the row held in registers.
// What changes against rung 3: each thread loads its share of the row with
// 16-byte loads into registers (at most kVecsPerThread uint4 = 32 bf16), the
// block reduces the sum of squares (warp shuffles, then one float per warp
// through shared memory), and the same threads scale the values they already
// hold and store them. x is read from HBM once, so the bytes drop from
// 2 (3 rows cols + cols) + 8 rows to 2 (2 rows cols + cols): read x, read w
// (16 KiB, stays in L1/L2), write y.
//
// Prediction at rows x cols = 2^28 (65536 x 4096 and 32768 x 8192): 1 GiB
// (+16 KiB of w) / ~4.2 TB/s ~ 256 us floor, against ~385 us for rung 3, so
// ~1.5x faster; expect ~88-92% of cudaMemcpy, ~280 us. It stays memory-bound:
// ~4 FLOP per element. The risk is latency, not bandwidth: a block loads, then
// waits at two barriers, then stores, and loads nothing meanwhile. Many small
// blocks per SM hide that (cols 4096: 128 threads of 4 uint4 each, 16 blocks
// per SM; 8192: 256 threads, 8 per SM; 32 registers, so 2048 threads
// resident): up to 128 KiB of loads in flight per SM while some blocks reduce,
// several times the ~32 KiB per SM Little's law asks for (4.2 TB/s x ~1 us /
// 132 SMs).
//
// Rows whose cols is not a multiple of 8 are not 16-byte aligned (row r starts
// at byte 2 r cols), and rows wider than 1024 x 32 values do not fit; those go
// to a scalar fallback that reads the row twice (the second time from L1/L2).
// The verify shapes (cols 100) use it; the timed shapes never do.
#include "roofline/contract/fusion.cuh"

#include <cstdint>

namespace {

using roofline::fusion::kRmsNormEps;

constexpr int kVecsPerThread = 4;  // uint4 (8 bf16 each) a thread keeps in registers
constexpr int kMaxThreads = 1024;
constexpr int kFallbackThreads = 256;

__device__ __forceinline__ float bf16_lo(uint32_t word) { return __uint_as_float(word << 16); }
__device__ __forceinline__ float bf16_hi(uint32_t word) { return __uint_as_float(word & 0xffff0000u); }

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

// The sum of v over the block, returned to every thread. Call once per kernel (the shared
// memory is not reused safely by a second call without another barrier).
__device__ __forceinline__ float block_sum(float v) {
    __shared__ float warp_sums[32];
    __shared__ float total;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (blockDim.x + 31) / 32 ? warp_sums[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0) total = v;
    }
    __syncthreads();
    return total;
}

// Requires cols % 8 == 0 and cols / 8 <= kVecs * blockDim.x. One block per row.
template <int kVecs>
__global__ __launch_bounds__(kMaxThreads) void rmsnorm_fused_kernel(const __nv_bfloat16* __restrict__ x,
                                                                     const __nv_bfloat16* __restrict__ w,
                                                                     __nv_bfloat16* __restrict__ y, int cols) {
    const std::size_t row = blockIdx.x;
    const int vecs = cols / 8;
    const auto* x4 = reinterpret_cast<const uint4*>(x + row * cols);
    const auto* w4 = reinterpret_cast<const uint4*>(w);
    auto* y4 = reinterpret_cast<uint4*>(y + row * cols);

    // All loads issued before any is used: kVecs x 16 bytes in flight per thread. x is read
    // once, so load it "streaming" (evict first) and leave the cache to w.
    uint4 buf[kVecs];
#pragma unroll
    for (int k = 0; k < kVecs; ++k) {
        const int v = threadIdx.x + k * blockDim.x;
        buf[k] = v < vecs ? __ldcs(x4 + v) : make_uint4(0, 0, 0, 0);
    }
    float sum = 0.0f;  // the zeros of the missing vectors add nothing
#pragma unroll
    for (int k = 0; k < kVecs; ++k) {
        const uint32_t words[4] = {buf[k].x, buf[k].y, buf[k].z, buf[k].w};
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            const float lo = bf16_lo(words[q]), hi = bf16_hi(words[q]);
            sum = fmaf(lo, lo, sum);
            sum = fmaf(hi, hi, sum);
        }
    }
    const float s = rsqrtf(block_sum(sum) / cols + kRmsNormEps);

#pragma unroll
    for (int k = 0; k < kVecs; ++k) {
        const int v = threadIdx.x + k * blockDim.x;
        if (v < vecs) {
            const uint4 wv = __ldg(w4 + v);
            const uint32_t xw[4] = {buf[k].x, buf[k].y, buf[k].z, buf[k].w};
            const uint32_t ww[4] = {wv.x, wv.y, wv.z, wv.w};
            uint32_t out[4];
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                __nv_bfloat162 r = __floats2bfloat162_rn(bf16_lo(xw[q]) * s * bf16_lo(ww[q]),
                                                         bf16_hi(xw[q]) * s * bf16_hi(ww[q]));
                out[q] = *reinterpret_cast<uint32_t*>(&r);
            }
            y4[v] = make_uint4(out[0], out[1], out[2], out[3]);
        }
    }
}

// Any cols: scalar accesses, the row read twice (the second read hits L1/L2). One block per row.
__global__ __launch_bounds__(kFallbackThreads) void rmsnorm_fallback_kernel(const __nv_bfloat16* __restrict__ x,
                                                                             const __nv_bfloat16* __restrict__ w,
                                                                             __nv_bfloat16* __restrict__ y, int cols) {
    const std::size_t row = blockIdx.x;
    const __nv_bfloat16* xr = x + row * cols;
    __nv_bfloat16* yr = y + row * cols;
    float sum = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) {
        const float v = __bfloat162float(xr[j]);
        sum = fmaf(v, v, sum);
    }
    const float s = rsqrtf(block_sum(sum) / cols + kRmsNormEps);
    for (int j = threadIdx.x; j < cols; j += blockDim.x)
        yr[j] = __float2bfloat16(__bfloat162float(xr[j]) * s * __bfloat162float(w[j]));
}

void fused(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, float* /*row_scratch*/, int rows,
           int cols, cudaStream_t stream) {
    if (rows <= 0 || cols <= 0) return;
    if (cols % 8 == 0) {
        const int vecs = cols / 8;
        const int needed = (vecs + kVecsPerThread - 1) / kVecsPerThread;  // threads, at kVecsPerThread each
        if (needed <= kMaxThreads) {
            // Round up to whole warps: cols 4096 -> 128 threads, 8192 -> 256, 4104 -> 160.
            const int threads = (needed + 31) / 32 * 32;
            rmsnorm_fused_kernel<kVecsPerThread><<<rows, threads, 0, stream>>>(x, w, y, cols);
            return;
        }
    }
    rmsnorm_fallback_kernel<<<rows, kFallbackThreads, 0, stream>>>(x, w, y, cols);
}

}  // namespace

ROOFLINE_RMSNORM_VARIANT(rmsnorm_fused_4096, fused);
ROOFLINE_RMSNORM_VARIANT(rmsnorm_fused_8192, fused);
