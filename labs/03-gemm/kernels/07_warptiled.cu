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
    // TODO 1: shared memory, two copies of each tile (double buffering), A's transposed as in
    //   rung 6 and its rows padded by a few floats (TODO 3 says why), 16-byte aligned.
    // TODO 2: indices: the warp's tile in the block tile, and the lane's 4x4 pieces in the warp
    //   tile, as the header lays them out (4 x 2 warps; in each 16 x 32 sub-tile, 4 x 8 lanes).
    // TODO 3: loading, as in rung 6 (one float4 of A, transposed into sA, one float4 of B).
    //   Work out the banks of the four scalar stores sA[buf][k][row] across a warp with a row
    //   length of 128 floats, then of 132: why does the pad remove the conflict?
    // TODO 4: the main loop, a two-stage pipeline with one __syncthreads per tile: the next
    //   tile's global loads must be in flight (into registers) while this tile's math runs on
    //   one shared copy, and land in the other copy afterwards (lesson 03, section 4: rung 7's
    //   two-stage form). Why is one barrier a tile enough? (Which copy was last read when, and
    //   by whom, and which is written next?)
    // TODO 5: compute, per k step: the lane's 8 values of A and 8 of B are two 4-float pieces
    //   of each (its pieces' rows and columns): four float4 reads, 64 FMAs. The point of the
    //   layout: in each of those reads the warp touches 64 or 128 contiguous bytes.
    // TODO 6: store: each accumulator is the C element of its piece's row and column; a row of
    //   a 4x4 piece is 4 consecutive floats of C, one float4 store.
}

void launch_warptiled(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
    dim3 grid(N / BN, M / BM);
    gemm_warptiled<<<grid, kThreads, 0, stream>>>(A, B, C, M, N, K);
}

}  // namespace

ROOFLINE_GEMM_VARIANT(r7_warptiled, launch_warptiled);
