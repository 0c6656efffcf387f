// Rung 1: naive. One thread per element of C, each walking a full row of A and
// a full column of B straight from global memory.
//
// This rung is meant to be slow in an instructive way: map threadIdx.x to the
// ROW of C (along M). Then the 32 threads of a warp read A[row][k] from 32
// different rows, K*4 bytes apart: 32 separate memory sectors per load
// instruction. Rung 2 fixes exactly that and nothing else.
//
// Predict before you measure: 2*M*N*K FLOPs at 4096^3 is 137 GFLOP. How many
// cache-line lookups does one warp-wide load of A need, and how many FMAs does
// it feed? (The lesson, lessons/03-gemm.md, has the numbers to reason with.)
#include "roofline/contract/gemm.cuh"

namespace {

constexpr int kBlock = 32;  // 32 x 32 = 1024 threads per block

__global__ void gemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
    // TODO 1: which element of C is this thread's? Its row comes from the x coordinates (block
    //   and thread) and its column from the y ones, as the launch below lays the grid out:
    //   x along M, on purpose (see above).
    // TODO 2: the grid is rounded up to whole blocks, so some threads fall outside C. They must
    //   write nothing: a write past C lands in the guard region around it, and the grader
    //   reports a stray write.
    // TODO 3: the element is the dot product of its row of A with its column of B (both
    //   row-major, as the contract says), summed over all K in a float and stored once.
}

void launch_naive(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
    dim3 block(kBlock, kBlock);
    dim3 grid((M + kBlock - 1) / kBlock, (N + kBlock - 1) / kBlock);  // x covers M, y covers N
    gemm_naive<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
}

}  // namespace

ROOFLINE_GEMM_VARIANT(r1_naive, launch_naive);
