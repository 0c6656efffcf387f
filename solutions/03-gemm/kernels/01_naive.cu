// Rung 1: naive. One thread per element of C, each walking a full row of A and
// a full column of B straight from global memory: 2K loads for 2K FLOPs, an
// arithmetic intensity of 0.25 FLOP/byte before any cache helps.
//
// The deliberate mistake: threadIdx.x runs along M (the row of C). The 32
// threads of a warp then read A[row][k] from 32 different rows, K*4 bytes
// apart: 32 separate 32-byte sectors per load instruction where one would do,
// and the C stores scatter the same way. B[k][col] is the same address for the
// whole warp (a broadcast). The L1 cache saves the day partly (the 32 rows'
// lines are reused by the next k), but every warp-wide load still needs 32
// cache-line lookups, so the LSU pipe, not the FMA units, sets the pace: about
// one warp-FMA per 32 cycles per SM.
//
// Prediction, 4096^3 on the H200 (137 GFLOP): 132 SMs x ~1.75 GHz x 32 FMA
// lanes / 32 cycles x 2 FLOP ~ 0.45 TFLOP/s, i.e. ~300 ms, under 1% of cuBLAS
// SGEMM (~50 TFLOP/s).
#include "roofline/contract/gemm.cuh"

namespace {

constexpr int kBlock = 32;  // 32 x 32 = 1024 threads per block

__global__ void gemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
    // x runs along M on purpose: consecutive threads take consecutive rows.
    const int row = blockIdx.x * kBlock + threadIdx.x;
    const int col = blockIdx.y * kBlock + threadIdx.y;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}

void launch_naive(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
    dim3 block(kBlock, kBlock);
    dim3 grid((M + kBlock - 1) / kBlock, (N + kBlock - 1) / kBlock);
    gemm_naive<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
}

}  // namespace

ROOFLINE_GEMM_VARIANT(r1_naive, launch_naive);
