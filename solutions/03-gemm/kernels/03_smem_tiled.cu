// Rung 3: shared-memory tiling. A 32x32 block of threads computes a 32x32 tile
// of C. It walks K in steps of 32: the block copies a 32x32 tile of A and one of
// B into shared memory (one element per thread, coalesced), synchronizes, and
// every thread does 32 FMAs out of shared memory.
//
// Against rung 2: each element brought in from global memory now serves 32
// FMAs instead of one, so global (L1/L2) traffic falls 32x (from 8 bytes per
// FMA to 0.25). The new limit is shared memory: every FMA still reads two
// floats from it (As[ty][kk] is a broadcast, Bs[kk][tx] one conflict-free
// row), so the inner loop is about 2 shared loads per FMA, and the two
// __syncthreads per tile stall all 32 warps of the block together.
//
// Prediction, 4096^3 on the H200: ~1.5x rung 2, ~4.5 TFLOP/s (~30 ms), about 9%
// of cuBLAS SGEMM.
//
// Edges: tiles that hang over M, N or K load zeros (which add nothing) and store
// nothing, so any shape works.
#include "roofline/contract/gemm.cuh"

namespace {

constexpr int kTile = 32;

__global__ void gemm_smem_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float sA[kTile][kTile];  // sA[m][k]: rows of this block's A strip
    __shared__ float sB[kTile][kTile];  // sB[k][n]: columns of this block's B strip
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * kTile + ty;
    const int col = blockIdx.x * kTile + tx;

    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += kTile) {
        // Coalesced: consecutive tx read consecutive k of A and consecutive n of B.
        sA[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
        sB[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < kTile; ++kk) acc += sA[ty][kk] * sB[kk][tx];
        __syncthreads();  // nobody overwrites the tiles while others still read them
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

void launch_smem_tiled(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
    dim3 block(kTile, kTile);
    dim3 grid((N + kTile - 1) / kTile, (M + kTile - 1) / kTile);
    gemm_smem_tiled<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
}

}  // namespace

ROOFLINE_GEMM_VARIANT(r3_smem_tiled, launch_smem_tiled);
