// Rung 2: the skinny GEMM, Y[M,N] = X[M,K] W[N,K]^T for M = 1..16.   (your file: edit the TODOs)
// M rows of activations (M requests decoded together) share one read of W: 2M
// FLOPs per 2 bytes. Graded against cuBLAS at M = 1, 2, 4, 8 and 16; the goal is
// to match or beat it at every M.
//
// Predict before you grade: `roofline calc --gemm 16,8192,8192 --dtype bf16
// --hardware h200-sxm`. Is M = 16 still memory-bound? Then the second question
// the roofline does not ask: at M = 16, how long do the FMAs take on the CUDA
// cores alone (2 M N K FLOPs at 67 TFLOP/s fp32, the datasheet peak), next to
// reading W? That is why this rung uses the tensor cores (mma.sync m16n8k16;
// roofline/ptx/mma_sync.cuh, lab 03).
//
// The layout trick: in one 16x8x16 mma, lane (g, q) = (lane / 4, lane % 4) holds
// A[g][2q, 2q+1], A[g+8][2q, 2q+1], A[g][2q+8, 2q+9], A[g+8][2q+8, 2q+9] and
// B[2q, 2q+1][g], B[2q+8, 2q+9][g]. A dot product does not care in which order
// k is summed as long as A and B agree, so let lane (g, q) load 8 consecutive
// weights k0 + 8q .. 8q+7 of W rows g and g + 8 (one uint4 each) and the same 8
// activations of X row g, and feed elements 0-3 to one mma and 4-7 to another:
// 16-byte loads, no shared memory, no shuffles.
#include "roofline/contract/gemv.cuh"
#include "roofline/ptx/mma_sync.cuh"

#include <cstdint>

namespace {

using roofline::gemm::mma::mma_bf16_16816;

constexpr int kWarps = 8;       // per block, splitting K
constexpr int kRows = 16;       // rows of W (outputs n) per block: the mma's M
[[maybe_unused]] constexpr int kUnroll = 4;  // 32-wide k steps a warp loads before it multiplies
constexpr int kMaxM = 16;       // rows of X per launch: two n8 tiles

[[maybe_unused]] __device__ __forceinline__ uint4 load_streaming(const uint4* p) {
    uint4 v;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}

// kTiles n8 tiles of X rows (1: M <= 8, 2: M <= 16). Requires K % 8 == 0. Block b owns rows
// 16 b .. 16 b + 15 of W; its 8 warps split K.
template <int kTiles>
__global__ __launch_bounds__(kWarps * 32, 4) void skinny_mma_kernel(const __nv_bfloat16* __restrict__ W,
                                                                 const __nv_bfloat16* __restrict__ X,
                                                                 __nv_bfloat16* __restrict__ Y, int M, int N, int K) {
    // TODO 1: g = lane / 4, q = lane % 4, n0 = blockIdx.x * kRows. This lane's rows: W rows n0 + g and
    //         n0 + g + 8 (zeros past N), X rows g + 8 t for t < kTiles (zeros past M), as uint4 arrays.
    // TODO 2: float d[kTiles][4] = {}. Warp w takes chunks of 4 * kUnroll uint4 (128 k) at
    //         w, w + kWarps, ...; in step u of a chunk lane (g, q) loads uint4 number c0 + 4 u + q of
    //         each of its rows (zero past K / 8). All loads first, then per step and tile:
    //           mma_bf16_16816(d[t], {lo.x, hi.x, lo.y, hi.y}, b.x, b.y);
    //           mma_bf16_16816(d[t], {lo.z, hi.z, lo.w, hi.w}, b.z, b.w);
    // TODO 3: the 8 warps' tiles: each writes d to __shared__ float partial[kWarps][kTiles][4][32],
    //         __syncthreads(), then one thread per output sums the 8 warps' values. d[t][i] of lane
    //         (g, q) is Y[m = 8 t + 2 q + i % 2][n = n0 + g + 8 (i / 2)]; store it as bf16 if m < M, n < N.
}

// Any K (rows not 16-byte aligned): one warp per row of W, every row of X.
__global__ void skinny_scalar_kernel(const __nv_bfloat16* __restrict__ W, const __nv_bfloat16* __restrict__ X,
                                     __nv_bfloat16* __restrict__ Y, int M, int N, int K) {
    // TODO: warp n = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; for each m < M a strided
    //       scalar dot product of W row n with X row m, shuffle-reduced; lane 0 writes Y[m][n].
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
        // TODO: launch skinny_mma_kernel<1> (rows <= 8) or <2> on X + m0 K and Y + m0 N.
        (void)rows;
        (void)blocks;
    }
}

}  // namespace

ROOFLINE_GEMV_BATCHED_VARIANT(skinny_m1, skinny);
ROOFLINE_GEMV_BATCHED_VARIANT(skinny_m2, skinny);
ROOFLINE_GEMV_BATCHED_VARIANT(skinny_m4, skinny);
ROOFLINE_GEMV_BATCHED_VARIANT(skinny_m8, skinny);
ROOFLINE_GEMV_BATCHED_VARIANT(skinny_m16, skinny);
