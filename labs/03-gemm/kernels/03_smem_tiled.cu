// Rung 3: shared-memory tiling. A 32x32 block of threads computes a 32x32 tile
// of C. It walks K in steps of 32: the block copies a 32x32 tile of A and one of
// B into shared memory (one element per thread), synchronizes, and every thread
// does 32 FMAs out of shared memory.
//
// Against rung 2, each element brought in from global memory now serves 32
// FMAs instead of one. Count the bytes per FMA from global memory and from
// shared memory before and after, and predict what limits this rung.
//
// Edges: this rung must take any shape (the verify shapes include 4000x4100x3900
// and 17x33x65). Tiles that hang over M, N or K should load zeros (they add
// nothing to the sum) and store nothing.
#include "roofline/contract/gemm.cuh"

namespace {

constexpr int kTile = 32;

__global__ void gemm_smem_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
    // TODO 1: the two tiles in shared memory, kTile x kTile floats each: one of A (indexed by
    //   m, then k) and one of B (by k, then n).
    // TODO 2: the thread's element of C, mapped as in rung 2 (threadIdx.x along N).
    // TODO 3: walk K one tile at a time. Per tile:
    //   - the block copies the tile of A (its rows of C, the tile's k) and the tile of B (the
    //     tile's k, its columns of C) into shared memory, one element of each per thread.
    //     Choose which thread copies which so that consecutive threadIdx.x read consecutive
    //     addresses of global memory (coalesced). An element outside A or B is copied as 0;
    //   - a barrier: nobody may read a tile before everybody has written it;
    //   - the thread's kTile FMAs: its row of the A tile against its column of the B tile;
    //   - a barrier again: nobody may overwrite the tiles while others still read them.
    //   Pitfall: every thread of the block must reach both barriers, including the ones
    //   outside C. Do not `return` early for them; guard the loads and the final store instead.
    // TODO 4: the store, only by threads inside C.
}

void launch_smem_tiled(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
    dim3 block(kTile, kTile);
    dim3 grid((N + kTile - 1) / kTile, (M + kTile - 1) / kTile);
    gemm_smem_tiled<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
}

}  // namespace

ROOFLINE_GEMM_VARIANT(r3_smem_tiled, launch_smem_tiled);
