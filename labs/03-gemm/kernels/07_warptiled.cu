// Rung 7: warp tiling. Same block tile as rung 6 (128x128, K step 8, 8x8
// outputs per thread, 256 threads), but the tile is split block -> warp ->
// thread, and the next tile's loads overlap the current tile's math.
//
//   block tile 128x128 = 4 x 2 warps, each warp owns a 32 x 64 warp tile;
//   warp tile 32x64    = 2 x 2 sub-tiles of 16 x 32;
//   sub-tile 16x32     = 4 x 8 lanes, each lane owns a 4x4 piece.
//   A thread owns 2 x 2 pieces of 4x4: rows {0..3, 16..19} and columns
//   {0..3, 32..35} of its warp tile, shifted by (4 * (lane / 8), 4 * (lane % 8)).
//
// Target: >= 80% of cuBLAS SGEMM at 4096^3. Why this layout: in each float4
// read of sA or sB, how many distinct addresses does a warp touch, and are they
// contiguous? Compare with rung 6 (lanes 32 bytes apart in sB).
//
// Shapes: divisible_by {m: 128, n: 128, k: 8}.
#include "roofline/contract/gemm.cuh"

namespace {

[[maybe_unused]] constexpr int BM = 128, BN = 128, BK = 8;
[[maybe_unused]] constexpr int WM = 32, WN = 64;                      // warp tile
constexpr int kWarpsM = BM / WM, kWarpsN = BN / WN;  // 4 x 2 warps
constexpr int kThreads = 32 * kWarpsM * kWarpsN;     // 256

__global__ __launch_bounds__(kThreads, 2) void gemm_warptiled(const float* A, const float* B, float* C, int M, int N,
                                                              int K) {
    // TODO 1: shared memory, two copies of each tile (double buffering):
    //   __shared__ __align__(16) float sA[2][BK][BM + 4];  // transposed; the +4 pad: see TODO 3
    //   __shared__ __align__(16) float sB[2][BK][BN];
    // TODO 2: indices. warp = t / 32, lane = t % 32.
    //   Warp tile origin: w_m = (warp / kWarpsN) * WM, w_n = (warp % kWarpsN) * WN.
    //   Lane piece origin: l_m = (lane / 8) * 4, l_n = (lane % 8) * 4.
    // TODO 3: loading, as in rung 6 (one float4 of A, transposed into sA, one float4 of B).
    //   Work out the banks of the four scalar stores sA[buf][k][row] across a warp with a row
    //   length of 128 floats, then of 132: why does the pad remove the conflict?
    // TODO 4: the main loop, one __syncthreads per tile:
    //   load tile 0 into registers, store it into copy 0, __syncthreads;
    //   for each tile: if there is a next tile, issue its float4 loads into registers now;
    //                  compute on the current copy;
    //                  store the registers into the other copy; __syncthreads; swap copies.
    //   Why is one barrier enough? (Which copy was last read when, and by whom?)
    // TODO 5: compute, per kk: float4 a0 = sA[buf][kk][w_m + l_m], a1 = ...[w_m + 16 + l_m],
    //   b0 = sB[buf][kk][w_n + l_n], b1 = ...[w_n + 32 + l_n]; 64 FMAs into acc[8][8].
    // TODO 6: store: acc[i][j] belongs to row w_m + (i / 4) * 16 + l_m + i % 4 and column
    //   w_n + (j / 4) * 32 + l_n + j % 4 of the block tile; four consecutive j make one float4 store.
}

void launch_warptiled(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
    dim3 grid(N / BN, M / BM);
    gemm_warptiled<<<grid, kThreads, 0, stream>>>(A, B, C, M, N, K);
}

}  // namespace

ROOFLINE_GEMM_VARIANT(r7_warptiled, launch_warptiled);
