// Rung 8: tensor cores. bf16 inputs, fp32 accumulation, bf16 output. The work
// of a warp is no longer 32 lanes x FMAs but warp-wide matrix instructions:
// mma.sync.m16n8k16 multiplies a 16x16 tile of A by a 16x8 tile of B and adds
// to a 16x8 fp32 accumulator: 2048 multiply-adds (4096 FLOPs) in one instruction.
//
//   block tile 128 x 128, K step 32, 256 threads = 2 x 4 warps;
//   warp tile 64 x 32 = 4 x 4 mma tiles of 16 x 8, two k16 steps per K step;
//   per warp and k16 step: 4 ldmatrix.x4 for A, 2 ldmatrix.x4.trans for B,
//   16 mma.
//
// Fragments come out of shared memory with ldmatrix: each lane gives the
// address of one 16-byte row of an 8x8 matrix, and the warp receives the
// matrix already spread across lanes the way mma wants it. A is K-contiguous
// (row-major MxK), which is what mma's "row" A operand wants. B is row-major
// KxN, N-contiguous, but mma's "col" B operand wants each lane to hold two
// consecutive k of one n: ldmatrix.trans transposes the 8x8 blocks on the way.
//
// Against rung 7: the datasheet ceiling moves from 67 TFLOP/s (fp32 FMA) to
// ~990 TFLOP/s (bf16 dense), and the bytes per element halve. This kernel is
// deliberately plain: tiles go global -> registers -> shared, two
// __syncthreads per K step, nothing overlaps loads with math, and the shared
// tiles are unpadded, so ldmatrix hits bank conflicts: the 8 rows of one 8x8
// matrix of A are 64 bytes apart (4-way conflict) and of B 256 bytes apart
// (8-way). Shared memory, not the tensor cores, sets the pace: ~128 shared
// wavefronts for 16 mma per warp and k16 step.
//
// Prediction, 4096^3 on the H200: ~150 TFLOP/s (~0.9 ms), 3x rung 7 in
// TFLOP/s but only ~20% of cuBLAS bf16 (~730 TFLOP/s).
//
// Shapes: M and N multiples of 128 and K of 32 (lab.yaml: divisible_by).
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/mma_sync.cuh"

#include <cstdint>

namespace {

using namespace roofline::gemm::mma;  // smem_addr, ldmatrix_x4(_trans), mma_bf16_16816

constexpr int BM = 128, BN = 128, BK = 32;
constexpr int WM = 64, WN = 32;                      // warp tile
constexpr int kWarpsN = BN / WN;                     // 2 x 4 warps
constexpr int kThreads = 32 * (BM / WM) * kWarpsN;   // 256
constexpr int MI = WM / 16, NI = WN / 8;             // 4 x 4 mma tiles per warp
constexpr int kChunk = 8;                            // bf16 per 16-byte chunk
constexpr int kChunksA = BM * BK / kChunk / kThreads;  // 2 chunks of A per thread per tile
constexpr int kChunksB = BK * BN / kChunk / kThreads;  // 2 chunks of B per thread per tile
static_assert(kChunksA * kThreads * kChunk == BM * BK && kChunksB * kThreads * kChunk == BK * BN);

__global__ __launch_bounds__(kThreads, 2) void gemm_tensor_core(const __nv_bfloat16* A, const __nv_bfloat16* B,
                                                                __nv_bfloat16* C, int M, int N, int K) {
    __shared__ __align__(16) __nv_bfloat16 sA[BM][BK];  // [128][32], k contiguous
    __shared__ __align__(16) __nv_bfloat16 sB[BK][BN];  // [32][128], n contiguous
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const int w_m = (warp / kWarpsN) * WM, w_n = (warp % kWarpsN) * WN;
    const __nv_bfloat16* gA = A + std::size_t(blockIdx.y) * BM * K;
    const __nv_bfloat16* gB = B + std::size_t(blockIdx.x) * BN;
    // Who copies what: chunk c = t + i * 256 of a tile. A tile: 128 rows of 4 chunks; B tile: 32 rows of 16.
    const int a_row = t / (BK / kChunk), a_col = (t % (BK / kChunk)) * kChunk;  // chunk i: row + i * 64
    const int b_row = t / (BN / kChunk), b_col = (t % (BN / kChunk)) * kChunk;  // chunk i: row + i * 16
    constexpr int kRowStepA = kThreads / (BK / kChunk), kRowStepB = kThreads / (BN / kChunk);
    // ldmatrix row addresses of this lane at mi = 0, nj = 0, ks = 0; the rest are constant offsets.
    //   A: lanes 0-15 point at rows 0-15, k 0-7 (matrices 0 and 1); lanes 16-31 at rows 0-15, k 8-15 (2 and 3).
    //   B: lanes 0-7 at k rows 0-7, lanes 8-15 at k rows 8-15, both at n 0-7; lanes 16-31 the same at n 8-15.
    const std::uint32_t a_frag = smem_addr(&sA[w_m + lane % 16][(lane / 16) * 8]);
    const std::uint32_t b_frag = smem_addr(&sB[lane % 8 + ((lane / 8) % 2) * 8][w_n + (lane / 16) * 8]);

    float acc[MI][NI][4] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        // Global -> registers -> shared, 16 bytes at a time.
        uint4 rA[kChunksA], rB[kChunksB];
#pragma unroll
        for (int i = 0; i < kChunksA; ++i)
            rA[i] = *reinterpret_cast<const uint4*>(&gA[std::size_t(a_row + i * kRowStepA) * K + k0 + a_col]);
#pragma unroll
        for (int i = 0; i < kChunksB; ++i)
            rB[i] = *reinterpret_cast<const uint4*>(&gB[std::size_t(k0 + b_row + i * kRowStepB) * N + b_col]);
#pragma unroll
        for (int i = 0; i < kChunksA; ++i) *reinterpret_cast<uint4*>(&sA[a_row + i * kRowStepA][a_col]) = rA[i];
#pragma unroll
        for (int i = 0; i < kChunksB; ++i) *reinterpret_cast<uint4*>(&sB[b_row + i * kRowStepB][b_col]) = rB[i];
        __syncthreads();

#pragma unroll
        for (int ks = 0; ks < BK; ks += 16) {
            std::uint32_t fA[MI][4], fB[NI][2];
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
                ldmatrix_x4(fA[mi], a_frag + (mi * 16 * BK + ks) * sizeof(__nv_bfloat16));
#pragma unroll
            for (int nj = 0; nj < NI / 2; ++nj) {  // one x4.trans = two n8 tiles x two k8 halves
                std::uint32_t r[4];
                ldmatrix_x4_trans(r, b_frag + (ks * BN + nj * 16) * sizeof(__nv_bfloat16));
                fB[2 * nj][0] = r[0];
                fB[2 * nj][1] = r[1];
                fB[2 * nj + 1][0] = r[2];
                fB[2 * nj + 1][1] = r[3];
            }
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
#pragma unroll
                for (int ni = 0; ni < NI; ++ni) mma_bf16_16816(acc[mi][ni], fA[mi], fB[ni][0], fB[ni][1]);
        }
        __syncthreads();
    }

    // Accumulator layout of m16n8: lane holds rows lane/4 and lane/4 + 8, columns 2*(lane%4) and +1.
    const int g = lane / 4, q = lane % 4;
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) {
            const int row = blockIdx.y * BM + w_m + mi * 16 + g;
            const int col = blockIdx.x * BN + w_n + ni * 8 + 2 * q;
            *reinterpret_cast<__nv_bfloat162*>(&C[std::size_t(row) * N + col]) =
                __floats2bfloat162_rn(acc[mi][ni][0], acc[mi][ni][1]);
            *reinterpret_cast<__nv_bfloat162*>(&C[std::size_t(row + 8) * N + col]) =
                __floats2bfloat162_rn(acc[mi][ni][2], acc[mi][ni][3]);
        }
}

void launch_tensor_core(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K,
                        cudaStream_t stream) {
    dim3 grid(N / BN, M / BM);
    gemm_tensor_core<<<grid, kThreads, 0, stream>>>(A, B, C, M, N, K);
}

}  // namespace

ROOFLINE_GEMM_VARIANT(r8_tensor_core, launch_tensor_core);
