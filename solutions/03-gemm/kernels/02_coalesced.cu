// Rung 2: coalesced. The same arithmetic as rung 1; only the mapping of threads
// to outputs changes: threadIdx.x now runs along N (the column of C).
//
// A warp's 32 threads now share one row of C: A[row][k] is one address for the
// whole warp (a broadcast), B[k][col..col+31] is 128 contiguous bytes (one
// cache line, four sectors), and the C store is one 128-byte line. Each warp
// load instruction now costs one or two cache-line lookups instead of 32.
//
// What limits it now: every FMA still needs two loads through L1 (no reuse in
// registers or shared memory), so the load/store pipe, at roughly one L1
// wavefront per cycle per SM, runs at about 2 per warp-FMA.
//
// Prediction, 4096^3 on the H200: 5-7x rung 1, ~3 TFLOP/s (~45 ms), about 6%
// of cuBLAS SGEMM.
#include "roofline/contract/gemm.cuh"

namespace {

constexpr int kBlock = 32;

__global__ void gemm_coalesced(const float* A, const float* B, float* C, int M, int N, int K) {
    const int col = blockIdx.x * kBlock + threadIdx.x;  // x along N: consecutive threads, consecutive columns
    const int row = blockIdx.y * kBlock + threadIdx.y;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}

void launch_coalesced(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
    dim3 block(kBlock, kBlock);
    dim3 grid((N + kBlock - 1) / kBlock, (M + kBlock - 1) / kBlock);
    gemm_coalesced<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
}

}  // namespace

ROOFLINE_GEMM_VARIANT(r2_coalesced, launch_coalesced);
