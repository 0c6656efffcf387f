// Rung 3 (given): RMSNorm in two passes.
//     pass 1: one block per row sums x^2 and writes s[r] = rsqrt(mean + eps) to row_scratch;
//     pass 2: one block per row writes y[r][j] = x[r][j] * s[r] * w[j].
// Both passes use 16-byte accesses where the rows allow it (cols a multiple of
// 8, so every row starts 16-byte aligned) and plain scalar loops otherwise.
// Each pass is close to the memory roof on its own; the cost is that x is read
// twice: 2 (2 rows cols) for pass 1 + pass 2's x and y, 2 (3 rows cols + cols)
// + 8 rows bytes in all, 1.5x the fused kernel's 2 (2 rows cols + cols). At
// rows x cols = 2^28 that is ~1.5 GiB, ~385 us at ~4.2 TB/s, against ~256 us.
// A row of 8-16 KiB would fit in cache, but between the passes all the other
// rows go through too (512 MiB of x against a 50 MiB L2): the second read
// comes from HBM.
#include "roofline/contract/fusion.cuh"

#include <cstdint>

namespace {

using roofline::fusion::kRmsNormEps;

constexpr int kThreads = 256;

__device__ inline float bf16_lo(uint32_t word) { return __uint_as_float(word << 16); }
__device__ inline float bf16_hi(uint32_t word) { return __uint_as_float(word & 0xffff0000u); }

// Pass 1: row_scratch[row] = rsqrt(mean_j x[row][j]^2 + eps). One block per row.
__global__ void rmsnorm_sum_squares(const __nv_bfloat16* __restrict__ x, float* __restrict__ row_scratch, int cols) {
    const std::size_t row = blockIdx.x;
    const __nv_bfloat16* xr = x + row * cols;
    float sum = 0.0f;
    if (cols % 8 == 0) {
        const auto* x4 = reinterpret_cast<const uint4*>(xr);
        for (int v = threadIdx.x; v < cols / 8; v += blockDim.x) {
            const uint4 p = x4[v];
            const uint32_t words[4] = {p.x, p.y, p.z, p.w};
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                const float lo = bf16_lo(words[k]), hi = bf16_hi(words[k]);
                sum += lo * lo + hi * hi;
            }
        }
    } else {
        for (int j = threadIdx.x; j < cols; j += blockDim.x) {
            const float v = __bfloat162float(xr[j]);
            sum += v * v;
        }
    }
    // Tree reduction in shared memory.
    __shared__ float partial[kThreads];
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int half = kThreads / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) row_scratch[row] = rsqrtf(partial[0] / cols + kRmsNormEps);
}

// Pass 2: y[row][j] = x[row][j] * row_scratch[row] * w[j]. One block per row.
__global__ void rmsnorm_scale(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
                              __nv_bfloat16* __restrict__ y, const float* __restrict__ row_scratch, int cols) {
    const std::size_t row = blockIdx.x;
    const float s = row_scratch[row];
    if (cols % 8 == 0) {
        const auto* x4 = reinterpret_cast<const uint4*>(x + row * cols);
        const auto* w4 = reinterpret_cast<const uint4*>(w);
        auto* y4 = reinterpret_cast<uint4*>(y + row * cols);
        for (int v = threadIdx.x; v < cols / 8; v += blockDim.x) {
            uint4 p = x4[v];
            const uint4 q = w4[v];
            auto* xv = reinterpret_cast<__nv_bfloat16*>(&p);
            const auto* wv = reinterpret_cast<const __nv_bfloat16*>(&q);
#pragma unroll
            for (int k = 0; k < 8; ++k)
                xv[k] = __float2bfloat16(__bfloat162float(xv[k]) * s * __bfloat162float(wv[k]));
            y4[v] = p;
        }
    } else {
        for (int j = threadIdx.x; j < cols; j += blockDim.x) {
            const std::size_t i = row * cols + j;
            y[i] = __float2bfloat16(__bfloat162float(x[i]) * s * __bfloat162float(w[j]));
        }
    }
}

void rmsnorm_naive(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, float* row_scratch, int rows,
                   int cols, cudaStream_t stream) {
    if (rows <= 0 || cols <= 0) return;
    rmsnorm_sum_squares<<<rows, kThreads, 0, stream>>>(x, row_scratch, cols);
    rmsnorm_scale<<<rows, kThreads, 0, stream>>>(x, w, y, row_scratch, cols);
}

}  // namespace

ROOFLINE_RMSNORM_VARIANT(rmsnorm_naive, rmsnorm_naive);
