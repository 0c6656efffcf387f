// Rung 2: coalesced. The same arithmetic as rung 1; only the mapping of threads
// to outputs changes: threadIdx.x runs along N (the column of C).
//
// Work out, for one warp, what the loads of A[row][k] and B[k][col] and the
// store to C[row][col] now touch: how many addresses, how many 128-byte lines?
// Then predict the speed-up over rung 1.
#include "roofline/contract/gemm.cuh"

namespace {

constexpr int kBlock = 32;

__global__ void gemm_coalesced(const float* A, const float* B, float* C, int M, int N, int K) {
    // TODO 1: which element of C is this thread's, now with consecutive threads of a warp
    //   (threadIdx.x) on consecutive columns of C and the rows from y. Check the launch below:
    //   grid.x must now cover N and grid.y M.
    // TODO 2: threads outside C write nothing, as in rung 1.
    // TODO 3: the same dot product as rung 1, stored to the thread's element of C.
}

void launch_coalesced(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
    dim3 block(kBlock, kBlock);
    dim3 grid((N + kBlock - 1) / kBlock, (M + kBlock - 1) / kBlock);
    gemm_coalesced<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
}

}  // namespace

ROOFLINE_GEMM_VARIANT(r2_coalesced, launch_coalesced);
