// Rung 4: 1D register blocking. Each thread now computes TM = 8 outputs of one
// column of C instead of one. Block tile 64x64, K step 8, 512 threads.
//
// Against rung 3: in the inner loop a thread reads one value of B from shared
// memory, keeps it in a register, and uses it for 8 FMAs (one per row of its
// column strip); the 8 values of A it needs are the same for the whole warp
// (broadcasts) and come in as wide loads. Shared-memory loads per FMA fall from
// about 2 to about 0.4, so the FMA pipe finally gets a real share of the issue
// slots. Fewer, fatter threads also mean less index arithmetic per FMA.
//
// Prediction, 4096^3 on the H200: ~3x rung 3, ~13 TFLOP/s (~10.5 ms), about 25%
// of cuBLAS SGEMM. Still limited by shared-memory traffic and by the two
// __syncthreads per 8-deep K step.
//
// Edges: loads outside A or B read zeros, stores outside C are skipped, so any
// shape works.
#include "roofline/contract/gemm.cuh"

namespace {

constexpr int BM = 64, BN = 64, BK = 8, TM = 8;
constexpr int kThreads = BM * BN / TM;  // 512: one thread per 8x1 strip of C

__global__ __launch_bounds__(kThreads) void gemm_register_1d(const float* A, const float* B, float* C, int M, int N,
                                                             int K) {
    __shared__ float sA[BM][BK];  // [64][8]
    __shared__ float sB[BK][BN];  // [8][64]
    const int t = threadIdx.x;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int t_col = t % BN;  // this thread's column in the tile; a warp covers 32 consecutive columns
    const int t_row = t / BN;  // this thread's strip: rows t_row*TM .. t_row*TM+7
    // Who loads what: one element of each tile per thread, coalesced along the row.
    const int a_r = t / BK, a_c = t % BK;
    const int b_r = t / BN, b_c = t % BN;

    float acc[TM] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        const int ar = bm + a_r, ac = k0 + a_c;
        sA[a_r][a_c] = (ar < M && ac < K) ? A[ar * K + ac] : 0.0f;
        const int br = k0 + b_r, bc = bn + b_c;
        sB[b_r][b_c] = (br < K && bc < N) ? B[br * N + bc] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            const float b = sB[kk][t_col];  // one register, reused TM times
#pragma unroll
            for (int i = 0; i < TM; ++i) acc[i] += sA[t_row * TM + i][kk] * b;
        }
        __syncthreads();
    }
    const int col = bn + t_col;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = bm + t_row * TM + i;
        if (row < M && col < N) C[row * N + col] = acc[i];
    }
}

void launch_register_1d(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    gemm_register_1d<<<grid, kThreads, 0, stream>>>(A, B, C, M, N, K);
}

}  // namespace

ROOFLINE_GEMM_VARIANT(r4_register_1d, launch_register_1d);
