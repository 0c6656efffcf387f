// Rung 6: vectorized memory access. Same tiling as rung 5 (128x128 block tile,
// K step 8, 8x8 outputs per thread); every load and store becomes 16 bytes wide.
//
// Against rung 5:
// - Global loads are float4: one 16-byte load brings four consecutive k of A
//   (or four consecutive n of B); 2 load instructions per thread per tile
//   instead of 8.
// - A is stored transposed in shared memory, sA[k][m], so that the 8 values of
//   A a thread needs at step kk are contiguous: two 16-byte shared loads instead
//   of eight 4-byte ones. B's 8 values were already contiguous: two more.
//   Per k step: 4 shared-load instructions for 64 FMAs (rung 5: up to 16).
// - C is written with float4 stores.
// Fewer load instructions means more issue slots for FMAs; the FMA share of
// the instruction stream rises to ~90%.
//
// Left for rung 7: lanes of a warp still read B at a 32-byte stride (2-way bank
// conflicts), the transposed store into sA is 2-way conflicted, and nothing
// hides the global-load latency except the other block on the SM.
//
// Prediction, 4096^3 on the H200: ~1.2x rung 5, ~30 TFLOP/s (~4.6 ms), about 60%
// of cuBLAS SGEMM.
//
// Shapes: M and N multiples of 128 and K of 8 (lab.yaml: divisible_by).
#include "roofline/contract/gemm.cuh"

namespace {

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int kThreads = (BM / TM) * (BN / TN);  // 256

__global__ __launch_bounds__(kThreads, 2) void gemm_vectorized(const float* A, const float* B, float* C, int M, int N,
                                                               int K) {
    __shared__ __align__(16) float sA[BK][BM];  // [8][128], transposed: sA[k][m]
    __shared__ __align__(16) float sB[BK][BN];  // [8][128]
    const int t = threadIdx.x;
    const int t_row = t / (BN / TN);  // 0..15
    const int t_col = t % (BN / TN);  // 0..15
    const float* gA = A + blockIdx.y * BM * K;
    const float* gB = B + blockIdx.x * BN;
    float* gC = C + blockIdx.y * BM * N + blockIdx.x * BN;
    // Loading: A tile 128x8 = 256 float4, one per thread (row t/2, k 0-3 or 4-7);
    //          B tile 8x128 = 256 float4, one per thread (row t/32, cols 4*(t%32) ..).
    const int a_r = t / 2, a_c = (t % 2) * 4;
    const int b_r = t / 32, b_c = (t % 32) * 4;

    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        const float4 a4 = *reinterpret_cast<const float4*>(&gA[a_r * K + k0 + a_c]);
        sA[a_c + 0][a_r] = a4.x;
        sA[a_c + 1][a_r] = a4.y;
        sA[a_c + 2][a_r] = a4.z;
        sA[a_c + 3][a_r] = a4.w;
        *reinterpret_cast<float4*>(&sB[b_r][b_c]) = *reinterpret_cast<const float4*>(&gB[(k0 + b_r) * N + b_c]);
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            const float4 a0 = *reinterpret_cast<const float4*>(&sA[kk][t_row * TM]);
            const float4 a1 = *reinterpret_cast<const float4*>(&sA[kk][t_row * TM + 4]);
            const float4 b0 = *reinterpret_cast<const float4*>(&sB[kk][t_col * TN]);
            const float4 b1 = *reinterpret_cast<const float4*>(&sB[kk][t_col * TN + 4]);
            const float rA[TM] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float rB[TN] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += rA[i] * rB[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        float* out = &gC[(t_row * TM + i) * N + t_col * TN];
        *reinterpret_cast<float4*>(out) = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        *reinterpret_cast<float4*>(out + 4) = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
    }
}

void launch_vectorized(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
    dim3 grid(N / BN, M / BM);
    gemm_vectorized<<<grid, kThreads, 0, stream>>>(A, B, C, M, N, K);
}

}  // namespace

ROOFLINE_GEMM_VARIANT(r6_vectorized, launch_vectorized);
