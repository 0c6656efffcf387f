// Lab 09 rung 2 (the skinny GEMM Y[M,N] = X[M,K] W[N,K]^T, bf16, fp32 accumulate): which
// access pattern reads W fastest at M = 1..16. Every candidate is first checked against a
// plain fp64 reference on the timed shapes and on odd ones; then, per M, all candidates,
// the solution file as it stands, cuBLAS (the grader's peer: the same cublasGemmEx call) and
// cudaMemcpy of W's bytes are timed interleaved (A, B, C, ... repeated), each launch after a
// 256 MiB memset that evicts the L2, with CUDA events; the table gives medians. Exit 0 only
// if every candidate that ran was correct. Instructor-side: it reads solutions/, so the
// student edition leaves it out.
//
// The candidates (all K-major W, all need K % 8 == 0; the launchers fall back to one scalar
// kernel otherwise and take M > 16 sixteen rows of X at a time):
//   ksplit_u4    the solution of 2026-11-30: a block owns 16 rows of W, its 8 warps split K;
//                lane (g, q) loads uint4 q of 4 of rows g and g + 8, so one load instruction
//                touches 8 rows x 64 bytes (half lines); 4 steps of 32 k in flight; 4 blocks/SM.
//   ksplit_u8    the same with 8 steps in flight and 2 blocks/SM (more bytes per warp, fewer warps).
//   lines_u4     the same block and mma, but each load instruction reads 4 rows x 128 bytes (whole
//                lines: lane 8 r + j takes uint4 j of row r) and shuffles move them into the mma's
//                layout: 4 shuffles per load, the bytes per request of rung 1's GEMV. It needs ~80
//                registers, so 3 blocks/SM (M > 8: half the steps in flight, 4 blocks/SM).
//   wb8_lines    W as the mma's B operand (8 rows of W per block, X's up to 16 rows as A): 1024
//                blocks of 128 KiB of W like the GEMV's (2.6 waves at 3 blocks/SM, so the SMs that
//                finish first take more), whole-line loads, no zero tiles for M > 8.
//   wb8_half     wb8 with the half-line loads of ksplit and no shuffles: wb8_lines against it is
//                the lines alone; wb8_half against ksplit_u4 is the grid's granularity alone.
//   fma_rows     rung 1's GEMV (a warp per row, 512 contiguous bytes per load) with M rows of X
//                and CUDA-core FMAs; M <= 4 only (the FMAs grow with M).
//
// From the course root, on a machine with an sm_90 GPU:
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -Igrader/include \
//       -o /tmp/skinny_variants scripts/probes/skinny_variants.cu -lcublas && /tmp/skinny_variants
// (scripts/device/skinny.sh does this). Optional argument: timed repetitions per M (default 40).
#include "probe_check.cuh"
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

// The solution registers itself with the grader's harness; here it is only called.
#include "roofline/contract/gemv.cuh"
#undef ROOFLINE_GEMV_BATCHED_VARIANT
#define ROOFLINE_GEMV_BATCHED_VARIANT(name, launch) static_assert(true, "")
#include "../../solutions/09-decode/kernels/02_skinny_gemm.cu"

namespace probe {

using bf16 = __nv_bfloat16;
using Launch = void (*)(const bf16* W, const bf16* X, bf16* Y, int M, int N, int K, cudaStream_t stream);

constexpr int kWarps = 8;  // per block, splitting K (ksplit, lines, wb8)
constexpr int kMaxM = 16;  // rows of X per launch

__device__ __forceinline__ uint4 load_streaming(const uint4* p) {
    uint4 v;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}

__device__ __forceinline__ uint4 shfl_uint4(uint4 v, int src) {
    return make_uint4(__shfl_sync(0xffffffffu, v.x, src), __shfl_sync(0xffffffffu, v.y, src),
                      __shfl_sync(0xffffffffu, v.z, src), __shfl_sync(0xffffffffu, v.w, src));
}

__device__ __forceinline__ void mma16816(float (&d)[4], std::uint32_t a0, std::uint32_t a1, std::uint32_t a2,
                                         std::uint32_t a3, std::uint32_t b0, std::uint32_t b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// W as A (16 rows g, g + 8), X as B (8 rows per tile): elements 0-3 of each uint4 are one k16
// step, 4-7 the next (k order does not matter as long as A and B agree).
template <int kTiles>
__device__ __forceinline__ void mma_w_as_a(float (&d)[kTiles][4], uint4 lo, uint4 hi, const uint4 (&b)[kTiles]) {
#pragma unroll
    for (int t = 0; t < kTiles; ++t) {
        mma16816(d[t], lo.x, hi.x, lo.y, hi.y, b[t].x, b[t].y);
        mma16816(d[t], lo.z, hi.z, lo.w, hi.w, b[t].z, b[t].w);
    }
}

// The 8 warps' 16 x (8 kTiles) tiles (W as A) summed through shared memory and stored.
template <int kTiles>
__device__ __forceinline__ void store_w_as_a(float (&partial)[kWarps][kTiles][4][32], const float (&d)[kTiles][4],
                                             bf16* Y, int M, int N, int n0) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
    for (int t = 0; t < kTiles; ++t)
#pragma unroll
        for (int i = 0; i < 4; ++i) partial[warp][t][i][lane] = d[t][i];
    __syncthreads();
    for (int e = threadIdx.x; e < 16 * 8 * kTiles; e += blockDim.x) {
        const int t = e / 128, r = (e / 8) % 16, col = e % 8;
        const int i = (r / 8) * 2 + col % 2, src_lane = (r % 8) * 4 + col / 2;
        float sum = 0.0f;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) sum += partial[w][t][i][src_lane];
        const int m = 8 * t + col, n = n0 + r;
        if (m < M && n < N) Y[std::size_t(m) * N + n] = __float2bfloat16(sum);
    }
}

// ---- ksplit: the 2026-11-30 solution, with its unroll and occupancy as parameters ----------
template <int kTiles, int kUnroll, int kMinBlocks>
__global__ __launch_bounds__(kWarps * 32, kMinBlocks) void ksplit_kernel(const bf16* __restrict__ W,
                                                                         const bf16* __restrict__ X,
                                                                         bf16* __restrict__ Y, int M, int N, int K) {
    __shared__ float partial[kWarps][kTiles][4][32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int g = lane / 4, q = lane % 4;
    const int n0 = blockIdx.x * 16, vecs = K / 8;
    const uint4 zero = make_uint4(0, 0, 0, 0);
    const uint4* w_lo = n0 + g < N ? reinterpret_cast<const uint4*>(W + std::size_t(n0 + g) * K) : nullptr;
    const uint4* w_hi = n0 + g + 8 < N ? reinterpret_cast<const uint4*>(W + std::size_t(n0 + g + 8) * K) : nullptr;
    const uint4* x_row[kTiles];
#pragma unroll
    for (int t = 0; t < kTiles; ++t)
        x_row[t] = g + 8 * t < M ? reinterpret_cast<const uint4*>(X + std::size_t(g + 8 * t) * K) : nullptr;
    float d[kTiles][4] = {};
    constexpr int chunk_vecs = 4 * kUnroll;
    for (int c0 = warp * chunk_vecs; c0 < vecs; c0 += kWarps * chunk_vecs) {
        uint4 a_lo[kUnroll], a_hi[kUnroll], b[kUnroll][kTiles];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            const int v = c0 + 4 * u + q;
            const bool in = v < vecs;
            a_lo[u] = in && w_lo ? load_streaming(w_lo + v) : zero;
            a_hi[u] = in && w_hi ? load_streaming(w_hi + v) : zero;
#pragma unroll
            for (int t = 0; t < kTiles; ++t) b[u][t] = in && x_row[t] ? __ldg(x_row[t] + v) : zero;
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) mma_w_as_a<kTiles>(d, a_lo[u], a_hi[u], b[u]);
    }
    store_w_as_a<kTiles>(partial, d, Y, M, N, n0);
}

// ---- lines: the same block, whole 128-byte lines per load, shuffled into the mma layout ----
// A "pair" is 8 uint4 (128 bytes) of each of the block's 16 rows: two k32 steps s = 0, 1. Load
// instruction i (0..3) of a pair: lane 8 r + j reads row 4 i + r at uint4 j ^ (4 (i & 1)), so each
// instruction covers 4 whole lines. Step s needs lane (g, q) to hold uint4 4 s + q of rows g and
// g + 8: that lies in lane 8 (g & 3) + 4 (s ^ (g >> 2)) + q, in instruction g >> 2 (rows g) and
// 2 + (g >> 2) (rows g + 8); a source lane with j / 4 == s is asked for instruction 0 (2), the
// others for 1 (3), so one shuffle per word serves all 32 lanes.
template <int kTiles, int kPairs, int kMinBlocks>
__global__ __launch_bounds__(kWarps * 32, kMinBlocks) void lines_kernel(const bf16* __restrict__ W,
                                                                        const bf16* __restrict__ X,
                                                                        bf16* __restrict__ Y, int M, int N, int K) {
    __shared__ float partial[kWarps][kTiles][4][32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int g = lane / 4, q = lane % 4, r = lane / 8, j = lane % 8;
    const int n0 = blockIdx.x * 16, vecs = K / 8;
    const uint4 zero = make_uint4(0, 0, 0, 0);
    const uint4* w_row[4];  // row n0 + 4 i + r (null past N)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const int n = n0 + 4 * i + r;
        w_row[i] = n < N ? reinterpret_cast<const uint4*>(W + std::size_t(n) * K) : nullptr;
    }
    const uint4* x_row[kTiles];
#pragma unroll
    for (int t = 0; t < kTiles; ++t)
        x_row[t] = g + 8 * t < M ? reinterpret_cast<const uint4*>(X + std::size_t(g + 8 * t) * K) : nullptr;
    int src[2];
#pragma unroll
    for (int s = 0; s < 2; ++s) src[s] = 8 * (g & 3) + 4 * (s ^ (g >> 2)) + q;
    float d[kTiles][4] = {};
    constexpr int chunk_vecs = 8 * kPairs;
#pragma unroll 1
    for (int c0 = warp * chunk_vecs; c0 < vecs; c0 += kWarps * chunk_vecs) {
        uint4 raw[kPairs][4], b[kPairs][2][kTiles];
#pragma unroll
        for (int p = 0; p < kPairs; ++p) {
            const int base = c0 + 8 * p;
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int v = base + (j ^ (4 * (i & 1)));
                raw[p][i] = v < vecs && w_row[i] ? load_streaming(w_row[i] + v) : zero;
            }
#pragma unroll
            for (int s = 0; s < 2; ++s)
#pragma unroll
                for (int t = 0; t < kTiles; ++t) {
                    const int v = base + 4 * s + q;
                    b[p][s][t] = v < vecs && x_row[t] ? __ldg(x_row[t] + v) : zero;
                }
        }
#pragma unroll
        for (int p = 0; p < kPairs; ++p)
#pragma unroll
            for (int s = 0; s < 2; ++s) {
                const bool first = j / 4 == s;
                const uint4 lo = shfl_uint4(first ? raw[p][0] : raw[p][1], src[s]);
                const uint4 hi = shfl_uint4(first ? raw[p][2] : raw[p][3], src[s]);
                mma_w_as_a<kTiles>(d, lo, hi, b[p][s]);
            }
    }
    store_w_as_a<kTiles>(partial, d, Y, M, N, n0);
}

// ---- wb8: W as B (8 rows a block), X as A (rows g and g + 8) ------------------------------
// Lane (g, q) supplies B column g = W row n0 + g and A rows g, g + 8 = X rows g, g + 8 (the
// latter only when M > 8: kXHalves = 2). A pair is 8 uint4 of each of the 8 rows. With
// kWholeLines, instruction i (0, 1): lane 8 r + j reads row 4 i + r at uint4 j ^ (4 i), shuffled
// as in lines_kernel; without, lane (g, q) reads uint4 4 s + q of row g itself (half lines, no
// shuffles: the control that tells the grid's granularity from the lines).
// D of lane (g, q): d[0..1] = Y[g][n0 + 2q, +1], d[2..3] = Y[g + 8][n0 + 2q, +1].
template <int kXHalves, int kPairs, int kMinBlocks, bool kWholeLines>
__global__ __launch_bounds__(kWarps * 32, kMinBlocks) void wb8_kernel(const bf16* __restrict__ W,
                                                                      const bf16* __restrict__ X,
                                                                      bf16* __restrict__ Y, int M, int N, int K) {
    __shared__ float partial[kWarps][4][32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int g = lane / 4, q = lane % 4, r = lane / 8, j = lane % 8;
    const int n0 = blockIdx.x * 8, vecs = K / 8;
    const uint4 zero = make_uint4(0, 0, 0, 0);
    const uint4* w_row[2];  // whole lines: row n0 + 4 i + r; half lines: row n0 + g (null past N)
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        const int n = kWholeLines ? n0 + 4 * i + r : n0 + g;
        w_row[i] = n < N ? reinterpret_cast<const uint4*>(W + std::size_t(n) * K) : nullptr;
    }
    const uint4* x_row[kXHalves];
#pragma unroll
    for (int h = 0; h < kXHalves; ++h)
        x_row[h] = g + 8 * h < M ? reinterpret_cast<const uint4*>(X + std::size_t(g + 8 * h) * K) : nullptr;
    int src[2];
#pragma unroll
    for (int s = 0; s < 2; ++s) src[s] = 8 * (g & 3) + 4 * (s ^ (g >> 2)) + q;
    float d[4] = {};
    constexpr int chunk_vecs = 8 * kPairs;
#pragma unroll 1
    for (int c0 = warp * chunk_vecs; c0 < vecs; c0 += kWarps * chunk_vecs) {
        uint4 raw[kPairs][2], a[kPairs][2][kXHalves];
#pragma unroll
        for (int p = 0; p < kPairs; ++p) {
            const int base = c0 + 8 * p;
#pragma unroll
            for (int i = 0; i < 2; ++i) {
                const int v = kWholeLines ? base + (j ^ (4 * i)) : base + 4 * i + q;
                raw[p][i] = v < vecs && w_row[i] ? load_streaming(w_row[i] + v) : zero;
            }
#pragma unroll
            for (int s = 0; s < 2; ++s)
#pragma unroll
                for (int h = 0; h < kXHalves; ++h) {
                    const int v = base + 4 * s + q;
                    a[p][s][h] = v < vecs && x_row[h] ? __ldg(x_row[h] + v) : zero;
                }
        }
#pragma unroll
        for (int p = 0; p < kPairs; ++p)
#pragma unroll
            for (int s = 0; s < 2; ++s) {
                const uint4 w = kWholeLines ? shfl_uint4(j / 4 == s ? raw[p][0] : raw[p][1], src[s]) : raw[p][s];
                const uint4 lo = a[p][s][0], hi = kXHalves == 2 ? a[p][s][kXHalves - 1] : zero;
                mma16816(d, lo.x, hi.x, lo.y, hi.y, w.x, w.y);
                mma16816(d, lo.z, hi.z, lo.w, hi.w, w.z, w.w);
            }
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) partial[warp][i][lane] = d[i];
    __syncthreads();
    // One thread per output of the 16 x 8 tile: Y[m][n0 + c], held as d[i] of lane (g, q) with
    // m = g + 8 (i / 2), c = 2 q + i % 2.
    if (threadIdx.x < 128) {
        const int m = threadIdx.x / 8, c = threadIdx.x % 8;
        const int i = (m / 8) * 2 + c % 2, src_lane = (m % 8) * 4 + c / 2;
        float sum = 0.0f;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) sum += partial[w][i][src_lane];
        if (m < M && n0 + c < N) Y[std::size_t(m) * N + n0 + c] = __float2bfloat16(sum);
    }
}

// ---- fma_rows: rung 1's GEMV with kM rows of X, CUDA-core FMAs ---------------------------
__device__ __forceinline__ float bf16_lo(std::uint32_t word) { return __uint_as_float(word << 16); }
__device__ __forceinline__ float bf16_hi(std::uint32_t word) { return __uint_as_float(word & 0xffff0000u); }

template <int kM>
__global__ __launch_bounds__(256) void fma_rows_kernel(const bf16* __restrict__ W, const bf16* __restrict__ X,
                                                       bf16* __restrict__ Y, int M, int N, int K) {
    constexpr int kUnroll = 4;
    const int lane = threadIdx.x % 32;
    const int row = blockIdx.x * 8 + threadIdx.x / 32;
    if (row >= N) return;
    const int vecs = K / 8;
    const auto* w4 = reinterpret_cast<const uint4*>(W + std::size_t(row) * K);
    float acc[kM] = {};
    auto use = [&](uint4 w, int v) {
        const std::uint32_t ws[4] = {w.x, w.y, w.z, w.w};
        float wf[8];
#pragma unroll
        for (int e = 0; e < 4; ++e) wf[2 * e] = bf16_lo(ws[e]), wf[2 * e + 1] = bf16_hi(ws[e]);
#pragma unroll
        for (int m = 0; m < kM; ++m) {
            if (m >= M) break;
            const uint4 x = __ldg(reinterpret_cast<const uint4*>(X + std::size_t(m) * K) + v);
            const std::uint32_t xs[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                acc[m] = fmaf(wf[2 * e], bf16_lo(xs[e]), acc[m]);
                acc[m] = fmaf(wf[2 * e + 1], bf16_hi(xs[e]), acc[m]);
            }
        }
    };
    int v = lane;
    for (; v + (kUnroll - 1) * 32 < vecs; v += kUnroll * 32) {
        uint4 w[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) w[u] = load_streaming(w4 + v + u * 32);
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) use(w[u], v + u * 32);
    }
    for (; v < vecs; v += 32) use(load_streaming(w4 + v), v);
#pragma unroll
    for (int m = 0; m < kM; ++m) {
        float s = acc[m];
#pragma unroll
        for (int offset = 16; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, offset);
        if (lane == 0 && m < M) Y[std::size_t(m) * N + row] = __float2bfloat16(s);
    }
}

// Any K: one warp per row of W, every row of X.
__global__ void scalar_kernel(const bf16* __restrict__ W, const bf16* __restrict__ X, bf16* __restrict__ Y, int M,
                              int N, int K) {
    const int lane = threadIdx.x % 32;
    const int n = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (n >= N) return;
    for (int m = 0; m < M; ++m) {
        float acc = 0.0f;
        for (int k = lane; k < K; k += 32)
            acc = fmaf(__bfloat162float(W[std::size_t(n) * K + k]), __bfloat162float(X[std::size_t(m) * K + k]), acc);
        for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, offset);
        if (lane == 0) Y[std::size_t(m) * N + n] = __float2bfloat16(acc);
    }
}

// The launchers: K % 8 != 0 to the scalar kernel, M > 16 in groups of 16 rows of X.
template <class Group>
void by_groups(const bf16* W, const bf16* X, bf16* Y, int M, int N, int K, cudaStream_t stream, Group group) {
    if (M <= 0 || N <= 0 || K <= 0) return;
    if (K % 8 != 0) {
        scalar_kernel<<<(N + 7) / 8, 256, 0, stream>>>(W, X, Y, M, N, K);
        return;
    }
    for (int m0 = 0; m0 < M; m0 += kMaxM)
        group(X + std::size_t(m0) * K, Y + std::size_t(m0) * N, std::min(kMaxM, M - m0));
}

template <int kUnroll, int kMinBlocks>
void ksplit(const bf16* W, const bf16* X, bf16* Y, int M, int N, int K, cudaStream_t stream) {
    by_groups(W, X, Y, M, N, K, stream, [&](const bf16* x, bf16* y, int rows) {
        const int blocks = (N + 15) / 16;
        if (rows <= 8) ksplit_kernel<1, kUnroll, kMinBlocks><<<blocks, kWarps * 32, 0, stream>>>(W, x, y, rows, N, K);
        else ksplit_kernel<2, kUnroll, kMinBlocks><<<blocks, kWarps * 32, 0, stream>>>(W, x, y, rows, N, K);
    });
}

void lines(const bf16* W, const bf16* X, bf16* Y, int M, int N, int K, cudaStream_t stream) {
    by_groups(W, X, Y, M, N, K, stream, [&](const bf16* x, bf16* y, int rows) {
        const int blocks = (N + 15) / 16;
        if (rows <= 8) lines_kernel<1, 2, 3><<<blocks, kWarps * 32, 0, stream>>>(W, x, y, rows, N, K);
        else lines_kernel<2, 1, 4><<<blocks, kWarps * 32, 0, stream>>>(W, x, y, rows, N, K);
    });
}

template <bool kWholeLines>
void wb8(const bf16* W, const bf16* X, bf16* Y, int M, int N, int K, cudaStream_t stream) {
    by_groups(W, X, Y, M, N, K, stream, [&](const bf16* x, bf16* y, int rows) {
        const int blocks = (N + 7) / 8;
        if (rows <= 8) wb8_kernel<1, 2, 3, kWholeLines><<<blocks, kWarps * 32, 0, stream>>>(W, x, y, rows, N, K);
        else wb8_kernel<2, 2, 3, kWholeLines><<<blocks, kWarps * 32, 0, stream>>>(W, x, y, rows, N, K);
    });
}

// M <= 4 only; larger M is refused by the table (the candidate is not run there).
void fma_rows(const bf16* W, const bf16* X, bf16* Y, int M, int N, int K, cudaStream_t stream) {
    by_groups(W, X, Y, M, N, K, stream, [&](const bf16* x, bf16* y, int rows) {
        const int blocks = (N + 7) / 8;
        if (rows == 1) fma_rows_kernel<1><<<blocks, 256, 0, stream>>>(W, x, y, rows, N, K);
        else if (rows == 2) fma_rows_kernel<2><<<blocks, 256, 0, stream>>>(W, x, y, rows, N, K);
        else fma_rows_kernel<4><<<blocks, 256, 0, stream>>>(W, x, y, rows, N, K);
    });
}

void solution(const bf16* W, const bf16* X, bf16* Y, int M, int N, int K, cudaStream_t stream) {
    skinny(W, X, Y, M, N, K, stream);  // solutions/09-decode/kernels/02_skinny_gemm.cu
}

struct Candidate {
    const char* name;
    Launch launch;
    int max_m;  // the largest M it is run at
};

const Candidate kCandidates[] = {
    {"ksplit_u4", ksplit<4, 4>, 1 << 30}, {"ksplit_u8", ksplit<8, 2>, 1 << 30}, {"lines_u4", lines, 1 << 30},
    {"wb8_lines", wb8<true>, 1 << 30},    {"wb8_half", wb8<false>, 1 << 30},  {"fma_rows", fma_rows, 4},
    {"solution", solution, 1 << 30},
};

// Y[m][n] in fp64 from the bf16 inputs, one warp per output.
__global__ void reference_kernel(const bf16* W, const bf16* X, double* R, int M, int N, int K) {
    const int lane = threadIdx.x % 32;
    const long long out = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (out >= (long long)M * N) return;
    const int m = int(out / N), n = int(out % N);
    double sum = 0;
    for (int k = lane; k < K; k += 32)
        sum += double(__bfloat162float(W[std::size_t(n) * K + k])) * double(__bfloat162float(X[std::size_t(m) * K + k]));
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    if (lane == 0) R[out] = sum;
}

__global__ void fill_uniform(bf16* p, std::size_t n, std::uint32_t seed) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
        std::uint32_t h = std::uint32_t(i) * 2654435761u ^ seed ^ std::uint32_t(i >> 32) * 40503u;
        h ^= h >> 15, h *= 2246822519u, h ^= h >> 13, h *= 3266489917u, h ^= h >> 16;
        p[i] = __float2bfloat16(float(h) / 4294967296.0f * 2.0f - 1.0f);  // [-1, 1)
    }
}

struct Shape {
    int M, N, K;
};

// The lab's tolerance (labs/09-decode/lab.yaml): |y - ref| <= atol + rtol |ref|, NaN never passes.
// Returns the number of bad elements; prints the first.
long long check(const char* name, Launch launch, const Shape& s, const bf16* W, const bf16* X, bf16* Y,
                const double* R) {
    const std::size_t mn = std::size_t(s.M) * s.N;
    CHECK_CUDA(cudaMemset(Y, 0xff, mn * sizeof(bf16)));  // NaN: an output never written shows
    launch(W, X, Y, s.M, s.N, s.K, nullptr);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<bf16> got(mn);
    std::vector<double> ref(mn);
    CHECK_CUDA(cudaMemcpy(got.data(), Y, mn * sizeof(bf16), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(ref.data(), R, mn * sizeof(double), cudaMemcpyDeviceToHost));
    long long bad = 0;
    for (std::size_t i = 0; i < mn; ++i) {
        const double y = __bfloat162float(got[i]);
        if (!(std::fabs(y - ref[i]) <= 1.0e-2 + 8.0e-3 * std::fabs(ref[i]))) {
            if (bad == 0)
                std::printf("  %s WRONG at M=%d N=%d K=%d: Y[%zu][%zu] = %g, reference %g\n", name, s.M, s.N, s.K,
                            i / s.N, i % s.N, y, ref[i]);
            ++bad;
        }
    }
    return bad;
}

}  // namespace probe

int main(int argc, char** argv) {
    using namespace probe;
    const int reps = argc > 1 ? std::max(5, std::atoi(argv[1])) : 40;
    cudaDeviceProp prop{};
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    std::printf("skinny GEMM candidates on %s (%d SMs); Y[M,N] = X W^T, N = K = 8192, bf16\n", prop.name,
                prop.multiProcessorCount);
    // Registers, spills and resident blocks per SM of each kernel (the occupancy suspects).
    auto describe = [&](const char* name, const void* kernel) {
        cudaFuncAttributes attr{};
        int blocks = 0;
        CHECK_CUDA(cudaFuncGetAttributes(&attr, kernel));
        CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, probe::kWarps * 32, 0));
        std::printf("  %-22s %3d registers, %4zu bytes local (spills), %zu bytes shared, %d blocks/SM\n", name,
                    attr.numRegs, attr.localSizeBytes, attr.sharedSizeBytes, blocks);
    };
    describe("ksplit_u4 M<=8", (const void*)ksplit_kernel<1, 4, 4>);
    describe("ksplit_u4 M<=16", (const void*)ksplit_kernel<2, 4, 4>);
    describe("ksplit_u8 M<=8", (const void*)ksplit_kernel<1, 8, 2>);
    describe("ksplit_u8 M<=16", (const void*)ksplit_kernel<2, 8, 2>);
    describe("lines_u4 M<=8", (const void*)lines_kernel<1, 2, 3>);
    describe("lines_u4 M<=16", (const void*)lines_kernel<2, 1, 4>);
    describe("wb8_lines M<=8", (const void*)wb8_kernel<1, 2, 3, true>);
    describe("wb8_lines M<=16", (const void*)wb8_kernel<2, 2, 3, true>);
    describe("wb8_half M<=8", (const void*)wb8_kernel<1, 2, 3, false>);
    describe("wb8_half M<=16", (const void*)wb8_kernel<2, 2, 3, false>);
    describe("fma_rows M=1", (const void*)fma_rows_kernel<1>);
    describe("fma_rows M=4", (const void*)fma_rows_kernel<4>);

    const int kN = 8192, kK = 8192;
    const std::size_t w_elems = std::size_t(kN) * kK, x_elems = std::size_t(32) * kK;
    bf16 *W, *X, *Y, *Ycublas;
    double* R;
    void* flush;
    const std::size_t flush_bytes = std::size_t(256) << 20;
    CHECK_CUDA(cudaMalloc(&W, w_elems * sizeof(bf16)));
    CHECK_CUDA(cudaMalloc(&X, x_elems * sizeof(bf16)));
    CHECK_CUDA(cudaMalloc(&Y, std::size_t(32) * kN * sizeof(bf16)));
    CHECK_CUDA(cudaMalloc(&Ycublas, std::size_t(32) * kN * sizeof(bf16)));
    CHECK_CUDA(cudaMalloc(&R, std::size_t(32) * kN * sizeof(double)));
    CHECK_CUDA(cudaMalloc(&flush, flush_bytes));
    fill_uniform<<<1024, 256>>>(W, w_elems, 20261201u);
    fill_uniform<<<64, 256>>>(X, x_elems, 7u);
    CHECK_CUDA(cudaGetLastError());

    cublasHandle_t cublas;
    if (cublasCreate(&cublas) != CUBLAS_STATUS_SUCCESS) {
        std::fprintf(stderr, "cublasCreate failed\n");
        return 2;
    }

    // Correctness: the timed shapes and odd ones (N = 1, 17; a partial 16-row tile; K a
    // multiple of 8 but not of 64; M > 16; K not a multiple of 8 goes to the scalar kernel).
    const Shape shapes[] = {{1, kN, kK}, {2, kN, kK}, {4, kN, kK}, {8, kN, kK}, {16, kN, kK},
                            {1, 1, 4096}, {3, 17, 1000}, {9, 33, 520}, {16, 300, 4096}, {20, 100, 2048},
                            {5, 17, 4099}, {4, 24, 8}};
    bool all_correct = true;
    std::vector<bool> correct(std::size(kCandidates), true);
    for (const auto& s : shapes) {
        const long long outs = (long long)s.M * s.N;
        reference_kernel<<<unsigned((outs + 7) / 8), 256>>>(W, X, R, s.M, s.N, s.K);
        CHECK_CUDA(cudaGetLastError());
        for (std::size_t c = 0; c < std::size(kCandidates); ++c) {
            if (s.M > kCandidates[c].max_m) continue;
            const long long bad = check(kCandidates[c].name, kCandidates[c].launch, s, W, X, Y, R);
            if (bad != 0) {
                std::printf("  %s: %lld of %lld outputs wrong at M=%d N=%d K=%d\n", kCandidates[c].name, bad, outs,
                            s.M, s.N, s.K);
                correct[c] = false;
                all_correct = false;
            }
        }
    }
    for (std::size_t c = 0; c < std::size(kCandidates); ++c)
        std::printf("verify %-10s %s\n", kCandidates[c].name, correct[c] ? "correct on all shapes" : "INCORRECT");

    // Timing, per M: every candidate, cuBLAS and cudaMemcpy of W's bytes, interleaved.
    cudaEvent_t start, stop;
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    const float one = 1.0f, zero = 0.0f;
    const std::size_t w_bytes = w_elems * sizeof(bf16);
    const int n_cand = int(std::size(kCandidates));
    std::printf("\nmedian of %d launches each, L2 flushed before each; us (TB/s on W's bytes, %% of cuBLAS)\n", reps);
    std::printf("%-10s", "M");
    for (int m : {1, 2, 4, 8, 16}) std::printf(" | %26d", m);
    std::printf("\n");
    std::vector<std::vector<double>> med(n_cand + 2, std::vector<double>(5, 0.0));
    int col = 0;
    for (int M : {1, 2, 4, 8, 16}) {
        std::vector<std::vector<float>> t(n_cand + 2);
        for (int rep = 0; rep < reps + 2; ++rep) {
            for (int c = 0; c < n_cand + 2; ++c) {
                if (c < n_cand && (M > kCandidates[c].max_m || !correct[c])) continue;
                CHECK_CUDA(cudaMemsetAsync(flush, rep & 0xff, flush_bytes));
                CHECK_CUDA(cudaEventRecord(start));
                if (c < n_cand) kCandidates[c].launch(W, X, Y, M, kN, kK, nullptr);
                else if (c == n_cand)  // the grader's peer: Y^T[N,M] = W X^T in column-major terms
                    cublasGemmEx(cublas, CUBLAS_OP_T, CUBLAS_OP_N, kN, M, kK, &one, W, CUDA_R_16BF, kK, X,
                                 CUDA_R_16BF, kK, &zero, Ycublas, CUDA_R_16BF, kN, CUBLAS_COMPUTE_32F,
                                 CUBLAS_GEMM_DEFAULT);
                else CHECK_CUDA(cudaMemcpyAsync(flush, W, w_bytes / 2, cudaMemcpyDeviceToDevice));
                CHECK_CUDA(cudaEventRecord(stop));
                CHECK_CUDA(cudaEventSynchronize(stop));
                float ms = 0;
                CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
                if (rep >= 2) t[c].push_back(ms * 1000.0f);  // two warm-up rounds
            }
        }
        CHECK_CUDA(cudaGetLastError());
        for (int c = 0; c < n_cand + 2; ++c) {
            if (t[c].empty()) continue;
            std::sort(t[c].begin(), t[c].end());
            med[c][col] = t[c][t[c].size() / 2];
        }
        ++col;
    }
    for (int c = 0; c < n_cand + 2; ++c) {
        const char* name = c < n_cand ? kCandidates[c].name : c == n_cand ? "cuBLAS" : "memcpy(W)";
        std::printf("%-10s", name);
        for (int i = 0; i < 5; ++i) {
            if (med[c][i] == 0) {
                std::printf(" | %26s", "-");
                continue;
            }
            const double us = med[c][i], tbs = double(w_bytes) / (us * 1e-6) / 1e12;
            std::printf(" | %7.2f us %5.3f TB/s %5.1f%%", us, tbs, 100.0 * med[n_cand][i] / us);
        }
        std::printf("\n");
    }
    std::printf("\n%s\n", all_correct ? "all candidates correct" : "SOME CANDIDATES INCORRECT (not timed)");
    cublasDestroy(cublas);
    return all_correct ? 0 : 1;
}
