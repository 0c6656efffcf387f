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
    // TODO 1: declare the tiles: __shared__ float sA[kTile][kTile] (sA[m][k]) and sB[kTile][kTile] (sB[k][n]).
    // TODO 2: row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x.
    // TODO 3: for k0 = 0, kTile, 2*kTile, ... < K:
    //   - thread (ty, tx) loads sA[ty][tx] = A[row][k0 + tx] and sB[ty][tx] = B[k0 + ty][col]
    //     (consecutive tx read consecutive addresses: coalesced), or 0 when outside A or B;
    //   - __syncthreads(): nobody may read a tile before everybody has written it;
    //   - acc += sA[ty][kk] * sB[kk][tx] for kk = 0 .. kTile-1;
    //   - __syncthreads() again: nobody may overwrite the tiles while others still read them.
    //   Pitfall: every thread of the block must reach both __syncthreads, including the ones
    //   outside C. Do not `return` early for them; guard the loads and the final store instead.
    // TODO 4: if (row < M && col < N) C[row * N + col] = acc.
}

void launch_smem_tiled(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
    dim3 block(kTile, kTile);
    dim3 grid((N + kTile - 1) / kTile, (M + kTile - 1) / kTile);
    gemm_smem_tiled<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
}

}  // namespace

ROOFLINE_GEMM_VARIANT(r3_smem_tiled, launch_smem_tiled);
