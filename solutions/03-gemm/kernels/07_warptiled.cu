// Rung 7: warp tiling. Same block tile as rung 6 (128x128, K step 8, 8x8
// outputs per thread, 256 threads), but the 8x8 outputs of a thread are no
// longer one contiguous 8x8 block: the tile is split block -> warp -> thread.
//
//   block tile 128x128 = 4 x 2 warps, each warp owns a 32 x 64 warp tile;
//   warp tile 32x64    = 2 x 2 sub-tiles of 16 x 32;
//   sub-tile 16x32     = 4 x 8 lanes, each lane owns a 4x4 piece.
//   So a thread owns 2 x 2 pieces of 4x4: rows {0..3, 16..19} and columns
//   {0..3, 32..35} of its warp tile, shifted by (4 * lane/8, 4 * lane%8).
//
// Against rung 6, what that buys:
// - Shared-memory reads without bank conflicts: in each 16-byte load the
//   warp's lanes touch 4 (for A) or 8 (for B) consecutive float4s, 64 or 128
//   contiguous bytes, each served in one pass. Rung 6's B reads had lanes 32
//   bytes apart (2-way conflicts).
// - A warp's 32 lanes now read only 32 + 64 floats of a k row per step for
//   2048 FMAs: the warp tile is what decides shared-memory traffic, and a
//   32x64 warp tile is the cheapest shape a 32-lane warp can cover with 4x4
//   pieces.
// - The transposed store into sA gets a 4-float row pad (132 instead of 128):
//   the 32 lanes then hit 32 different banks.
// - One more thing, the seed of rung 9's idea: shared memory holds two copies
//   of each tile. While the warps compute on tile t, each thread already has
//   its loads of tile t+1 in flight into registers, and stores them into the
//   other copy afterwards: one __syncthreads per tile instead of two, and the
//   global-load latency hides behind 512 FMAs per thread.
//
// Prediction, 4096^3 on the H200: ~42 TFLOP/s (~3.3 ms), 80-90% of cuBLAS
// SGEMM (~50 TFLOP/s). The FMA pipe is now the limit: ~90% of the issued
// instructions are FFMA, at ~2 blocks (16 warps) per SM.
//
// Shapes: M and N multiples of 128 and K of 8 (lab.yaml: divisible_by).
#include "roofline/contract/gemm.cuh"

namespace {

constexpr int BM = 128, BN = 128, BK = 8;
constexpr int WM = 32, WN = 64;                         // warp tile
constexpr int kWarpsM = BM / WM, kWarpsN = BN / WN;     // 4 x 2 warps
constexpr int kThreads = 32 * kWarpsM * kWarpsN;        // 256
constexpr int kLanesM = 4, kLanesN = 8;                 // lanes of a warp, as a 4 x 8 grid
constexpr int kSubM = WM / 2, kSubN = WN / 2;           // 16 x 32 sub-tiles, 2 x 2 per warp
constexpr int kPadA = 4;                                 // keeps float4 alignment, spreads the transposed store
static_assert(kLanesM * kLanesN == 32 && kSubM == kLanesM * 4 && kSubN == kLanesN * 4);

__global__ __launch_bounds__(kThreads, 2) void gemm_warptiled(const float* A, const float* B, float* C, int M, int N,
                                                              int K) {
    __shared__ __align__(16) float sA[2][BK][BM + kPadA];  // two copies, transposed: sA[buf][k][m]
    __shared__ __align__(16) float sB[2][BK][BN];          // two copies: sB[buf][k][n]
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const int w_m = (warp / kWarpsN) * WM;                  // warp tile origin inside the block tile
    const int w_n = (warp % kWarpsN) * WN;
    const int l_m = (lane / kLanesN) * 4;                   // lane's 4x4 piece inside a sub-tile
    const int l_n = (lane % kLanesN) * 4;
    const float* gA = A + blockIdx.y * BM * K;
    const float* gB = B + blockIdx.x * BN;
    float* gC = C + blockIdx.y * BM * N + blockIdx.x * BN;
    // Loading, as in rung 6: one float4 of A (row t/2, k 0-3 or 4-7) and one of B (row t/32) per tile.
    const int a_r = t / 2, a_c = (t % 2) * 4;
    const int b_r = t / 32, b_c = (t % 32) * 4;

    auto store_tile = [&](int buf, float4 a4, float4 b4) {
        sA[buf][a_c + 0][a_r] = a4.x;
        sA[buf][a_c + 1][a_r] = a4.y;
        sA[buf][a_c + 2][a_r] = a4.z;
        sA[buf][a_c + 3][a_r] = a4.w;
        *reinterpret_cast<float4*>(&sB[buf][b_r][b_c]) = b4;
    };

    float4 nextA = *reinterpret_cast<const float4*>(&gA[a_r * K + a_c]);
    float4 nextB = *reinterpret_cast<const float4*>(&gB[b_r * N + b_c]);
    store_tile(0, nextA, nextB);
    __syncthreads();

    float acc[8][8] = {};  // acc[i][j]: row (i/4)*16 + i%4, col (j/4)*32 + j%4 of this lane's pieces
    int buf = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        const bool has_next = k0 + BK < K;
        if (has_next) {  // issue the next tile's loads now; they land while we compute
            nextA = *reinterpret_cast<const float4*>(&gA[a_r * K + k0 + BK + a_c]);
            nextB = *reinterpret_cast<const float4*>(&gB[(k0 + BK + b_r) * N + b_c]);
        }
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            const float4 a0 = *reinterpret_cast<const float4*>(&sA[buf][kk][w_m + l_m]);
            const float4 a1 = *reinterpret_cast<const float4*>(&sA[buf][kk][w_m + kSubM + l_m]);
            const float4 b0 = *reinterpret_cast<const float4*>(&sB[buf][kk][w_n + l_n]);
            const float4 b1 = *reinterpret_cast<const float4*>(&sB[buf][kk][w_n + kSubN + l_n]);
            const float rA[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float rB[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] += rA[i] * rB[j];
        }
        if (has_next) store_tile(buf ^ 1, nextA, nextB);  // the other copy: nobody reads it this round
        __syncthreads();
        buf ^= 1;
    }

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int row = w_m + (i / 4) * kSubM + l_m + i % 4;
#pragma unroll
        for (int jh = 0; jh < 2; ++jh) {
            const int col = w_n + jh * kSubN + l_n;
            *reinterpret_cast<float4*>(&gC[row * N + col]) =
                make_float4(acc[i][jh * 4 + 0], acc[i][jh * 4 + 1], acc[i][jh * 4 + 2], acc[i][jh * 4 + 3]);
        }
    }
}

void launch_warptiled(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
    dim3 grid(N / BN, M / BM);
    gemm_warptiled<<<grid, kThreads, 0, stream>>>(A, B, C, M, N, K);
}

}  // namespace

ROOFLINE_GEMM_VARIANT(r7_warptiled, launch_warptiled);
