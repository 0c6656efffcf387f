// Rung 5: 2D register blocking. Each thread computes an 8x8 block of C (an
// outer product per k step). Block tile 128x128, K step 8, 256 threads.
//
// Against rung 4: per k step a thread loads 8 values of A and 8 of B into
// registers and does 8 x 8 = 64 FMAs with them: 16 loads for 64 FMAs, where
// rung 4 needed 9 for 8. Shared-memory traffic per FMA falls another ~2x and
// the bigger block tile (128x128) halves global traffic per FMA again
// (intensity of the tile loop: 128*128*8*2 FLOPs per (128+128)*8*4 bytes =
// 32 FLOP/byte). 64 accumulators per thread live in registers (~100
// registers per thread), so only 2 blocks (16 warps) fit per SM: lower
// occupancy, on purpose, in exchange for reuse.
//
// Left for later: A is stored [m][k] in shared memory, so the 8 values of A a
// thread needs are 8 scalar loads with a stride; B's 8 values sit at a 32-byte
// stride across lanes (2-way bank conflicts); loads from global are scalar.
//
// Prediction, 4096^3 on the H200: ~2x rung 4, ~25 TFLOP/s (~5.5 ms), about 50%
// of cuBLAS SGEMM.
//
// Shapes: M and N multiples of 128 and K of 8 (lab.yaml: divisible_by).
#include "roofline/contract/gemm.cuh"

namespace {

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int kThreads = (BM / TM) * (BN / TN);  // 256
constexpr int kLoadsA = BM * BK / kThreads;      // 4 elements of A per thread per tile
constexpr int kLoadsB = BK * BN / kThreads;      // 4 elements of B per thread per tile

__global__ __launch_bounds__(kThreads, 2) void gemm_register_2d(const float* A, const float* B, float* C, int M, int N,
                                                                int K) {
    __shared__ float sA[BM][BK];  // [128][8]
    __shared__ float sB[BK][BN];  // [8][128]
    const int t = threadIdx.x;
    const int t_row = t / (BN / TN);  // 0..15: rows t_row*8 .. +7 of the tile
    const int t_col = t % (BN / TN);  // 0..15: cols t_col*8 .. +7
    const float* gA = A + blockIdx.y * BM * K;  // this block's 128-row strip of A
    const float* gB = B + blockIdx.x * BN;      // this block's 128-column strip of B
    float* gC = C + blockIdx.y * BM * N + blockIdx.x * BN;

    float acc[TM][TN] = {};
    float rA[TM], rB[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int i = 0; i < kLoadsA; ++i) {
            const int r = t / BK + i * (kThreads / BK), c = t % BK;
            sA[r][c] = gA[r * K + k0 + c];
        }
#pragma unroll
        for (int i = 0; i < kLoadsB; ++i) {
            const int r = t / BN + i * (kThreads / BN), c = t % BN;
            sB[r][c] = gB[(k0 + r) * N + c];
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
#pragma unroll
            for (int i = 0; i < TM; ++i) rA[i] = sA[t_row * TM + i][kk];
#pragma unroll
            for (int j = 0; j < TN; ++j) rB[j] = sB[kk][t_col * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += rA[i] * rB[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) gC[(t_row * TM + i) * N + t_col * TN + j] = acc[i][j];
}

void launch_register_2d(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
    dim3 grid(N / BN, M / BM);
    gemm_register_2d<<<grid, kThreads, 0, stream>>>(A, B, C, M, N, K);
}

}  // namespace

ROOFLINE_GEMM_VARIANT(r5_register_2d, launch_register_2d);
