// Rung 2: the skinny GEMM, Y[M,N] = X[M,K] W[N,K]^T for M = 1..16, on the tensor cores.
// With M rows of activations each weight is used M times: 2M FLOPs per 2 bytes.
// Up to M ~ 16 that is still far under the H200's ridge (~200 FLOP/byte for bf16
// against HBM), so the time stays W's bytes over the bandwidth, the same ~32 us
// at N = K = 8192 for every M. What breaks first is the arithmetic: at M = 16 the
// FMAs on the CUDA cores alone (2 x 16 x 8192^2 = 2.1 GFLOP at 67 TFLOP/s fp32)
// take as long as reading W. So the multiply goes to mma.sync (m16n8k16, bf16 in,
// fp32 accumulate): 16 rows of W are the A operand, up to 8 rows of X the B
// operand (two tiles for M > 8), and the tensor cores have time to spare.
//
// The trick that lets the loads stay 16 bytes wide: a dot product does not care
// in which order k is summed, as long as A and B agree. Lane (g, q) = (lane / 4,
// lane % 4) needs, of one 16-wide k step, the pairs 2q, 2q+1 and 2q+8, 2q+9; we
// let it load 8 consecutive weights k0 + 8q .. 8q+7 of rows g and g+8 instead
// (one uint4 each) and the same 8 activations of X row g, and feed elements 0-3 to
// one mma and 4-7 to a second. Each k "step" of 32 thus costs 2 mma and three 16-byte
// loads. Eight warps split K between them and add their tiles in shared memory.
//
// Prediction at N = K = 8192: ~32 us at every M (128 MiB of W at ~4.2 TB/s),
// ~90-100% of cudaMemcpy's rate on W. cuBLAS at these M runs a GEMV or a GEMM
// tile built for large M: expect it at 60-90% of the memory roof, so >= 1x cuBLAS.
// M > 16 is done 16 rows of X at a time, reading W once per 16 rows.
#include "roofline/gemv.cuh"
#include "roofline/mma_sync.cuh"

#include <cstdint>

namespace {

using roofline::gemm::mma::mma_bf16_16816;

constexpr int kWarps = 8;       // per block, splitting K
constexpr int kRows = 16;       // rows of W (outputs n) per block: the mma's M
constexpr int kUnroll = 4;      // 32-wide k steps a warp loads before it multiplies
constexpr int kMaxM = 16;       // rows of X per launch: two n8 tiles

__device__ __forceinline__ uint4 load_streaming(const uint4* p) {
    uint4 v;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}

// kTiles n8 tiles of X rows (1: M <= 8, 2: M <= 16). Requires K % 8 == 0.
template <int kTiles>
__global__ __launch_bounds__(kWarps * 32, 4) void skinny_mma_kernel(const __nv_bfloat16* __restrict__ W,
                                                                 const __nv_bfloat16* __restrict__ X,
                                                                 __nv_bfloat16* __restrict__ Y, int M, int N, int K) {
    __shared__ float partial[kWarps][kTiles][4][32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int g = lane / 4, q = lane % 4;
    const int n0 = blockIdx.x * kRows;
    const int vecs = K / 8;  // uint4 per row
    const uint4 zero = make_uint4(0, 0, 0, 0);
    // This lane's rows: of W, n0 + g and n0 + g + 8 (zero past N); of X, g and g + 8 (zero past M).
    const uint4* w_lo = n0 + g < N ? reinterpret_cast<const uint4*>(W + std::size_t(n0 + g) * K) : nullptr;
    const uint4* w_hi = n0 + g + 8 < N ? reinterpret_cast<const uint4*>(W + std::size_t(n0 + g + 8) * K) : nullptr;
    const uint4* x_row[kTiles];
#pragma unroll
    for (int t = 0; t < kTiles; ++t)
        x_row[t] = g + 8 * t < M ? reinterpret_cast<const uint4*>(X + std::size_t(g + 8 * t) * K) : nullptr;

    float d[kTiles][4] = {};
    // Chunks of kUnroll steps of 32 k (4 uint4 per row per step); warp w takes chunks w, w + kWarps, ...
    const int chunk_vecs = 4 * kUnroll;
    for (int c0 = warp * chunk_vecs; c0 < vecs; c0 += kWarps * chunk_vecs) {
        uint4 a_lo[kUnroll], a_hi[kUnroll], b[kTiles][kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            const int v = c0 + 4 * u + q;
            const bool in = v < vecs;
            a_lo[u] = in && w_lo ? load_streaming(w_lo + v) : zero;
            a_hi[u] = in && w_hi ? load_streaming(w_hi + v) : zero;
#pragma unroll
            for (int t = 0; t < kTiles; ++t) b[t][u] = in && x_row[t] ? __ldg(x_row[t] + v) : zero;
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            // Elements 0-3 of each uint4 (words x, y) as one k16 step, 4-7 (words z, w) as the next.
            const std::uint32_t first[4] = {a_lo[u].x, a_hi[u].x, a_lo[u].y, a_hi[u].y};
            const std::uint32_t second[4] = {a_lo[u].z, a_hi[u].z, a_lo[u].w, a_hi[u].w};
#pragma unroll
            for (int t = 0; t < kTiles; ++t) {
                mma_bf16_16816(d[t], first, b[t][u].x, b[t][u].y);
                mma_bf16_16816(d[t], second, b[t][u].z, b[t][u].w);
            }
        }
    }
#pragma unroll
    for (int t = 0; t < kTiles; ++t)
#pragma unroll
        for (int i = 0; i < 4; ++i) partial[warp][t][i][lane] = d[t][i];
    __syncthreads();
    // One thread per output of the block's 16 x (8 kTiles) tile: d[i] of lane (g, q) holds
    // row g + 8 (i / 2), column 2q + i % 2.
    for (int e = threadIdx.x; e < kRows * 8 * kTiles; e += blockDim.x) {
        const int t = e / (kRows * 8), r = (e / 8) % kRows, col = e % 8;
        const int i = (r / 8) * 2 + col % 2, src_lane = (r % 8) * 4 + col / 2;
        float sum = 0.0f;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) sum += partial[w][t][i][src_lane];
        const int m = 8 * t + col, n = n0 + r;
        if (m < M && n < N) Y[std::size_t(m) * N + n] = __float2bfloat16(sum);
    }
}

// Any K (rows not 16-byte aligned): one warp per row of W, every row of X.
__global__ void skinny_scalar_kernel(const __nv_bfloat16* __restrict__ W, const __nv_bfloat16* __restrict__ X,
                                     __nv_bfloat16* __restrict__ Y, int M, int N, int K) {
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

void skinny(const __nv_bfloat16* W, const __nv_bfloat16* X, __nv_bfloat16* Y, int M, int N, int K,
            cudaStream_t stream) {
    if (M <= 0 || N <= 0 || K <= 0) return;
    if (K % 8 != 0) {
        skinny_scalar_kernel<<<(N + 7) / 8, 256, 0, stream>>>(W, X, Y, M, N, K);
        return;
    }
    const int blocks = (N + kRows - 1) / kRows;
    for (int m0 = 0; m0 < M; m0 += kMaxM) {
        const int rows = M - m0 < kMaxM ? M - m0 : kMaxM;
        const __nv_bfloat16* x = X + std::size_t(m0) * K;
        __nv_bfloat16* y = Y + std::size_t(m0) * N;
        if (rows <= 8) skinny_mma_kernel<1><<<blocks, kWarps * 32, 0, stream>>>(W, x, y, rows, N, K);
        else skinny_mma_kernel<2><<<blocks, kWarps * 32, 0, stream>>>(W, x, y, rows, N, K);
    }
}

}  // namespace

ROOFLINE_GEMV_BATCHED_VARIANT(skinny_m1, skinny);
ROOFLINE_GEMV_BATCHED_VARIANT(skinny_m2, skinny);
ROOFLINE_GEMV_BATCHED_VARIANT(skinny_m4, skinny);
ROOFLINE_GEMV_BATCHED_VARIANT(skinny_m8, skinny);
ROOFLINE_GEMV_BATCHED_VARIANT(skinny_m16, skinny);
