// Rung 8: tensor cores. bf16 inputs, fp32 accumulation, bf16 output.
// mma.sync.m16n8k16 multiplies a 16x16 tile of A by a 16x8 tile of B and adds
// into a 16x8 fp32 accumulator held across the warp: 2048 multiply-adds (4096 FLOPs) in
// one instruction. ldmatrix loads 8x8 bf16 matrices from shared memory straight
// into the register layout mma wants.
//
//   block tile 128 x 128, K step 32, 256 threads = 2 x 4 warps;
//   warp tile 64 x 32 = 4 x 4 mma tiles of 16 x 8 (MI x NI), two k16 steps per K step.
//
// Keep this rung plain: global -> registers -> shared (uint4, 16 bytes at a
// time), __syncthreads, mma, __syncthreads. Rung 9 adds the pipeline and fixes
// the bank conflicts this layout has. Predict: which limit do you hit first,
// the tensor cores or shared memory?
//
// Shapes: divisible_by {m: 128, n: 128, k: 32}.
//
// The PTX wrappers below are given; the exercise is the tiling and the lane
// addressing. PTX ISA, "Matrix Fragments for mma.m16n8k16" and "ldmatrix", has
// the register layouts.
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/mma_sync.cuh"

#include <cstdint>

namespace {

using namespace roofline::gemm::mma;  // smem_addr, ldmatrix_x4(_trans), mma_bf16_16816

[[maybe_unused]] constexpr int BM = 128, BN = 128, BK = 32;
[[maybe_unused]] constexpr int WM = 64, WN = 32;       // warp tile
[[maybe_unused]] constexpr int MI = WM / 16, NI = WN / 8;  // 4 x 4 mma tiles per warp
constexpr int kThreads = 256;

__global__ __launch_bounds__(kThreads, 2) void gemm_tensor_core(const __nv_bfloat16* A, const __nv_bfloat16* B,
                                                                __nv_bfloat16* C, int M, int N, int K) {
    // TODO 1: shared tiles __shared__ __align__(16) __nv_bfloat16 sA[BM][BK] (k contiguous)
    //   and sB[BK][BN] (n contiguous).
    // TODO 2: warp = t / 32 owns the warp tile at w_m = (warp / 4) * WM, w_n = (warp % 4) * WN.
    // TODO 3: loading: a tile is 512 chunks of 8 bf16 (16 bytes); thread t copies chunks t and t + 256.
    //   A: chunk c is row c / 4, columns (c % 4) * 8 .. +7; B: row c / 16, columns (c % 16) * 8 .. +7.
    //   Load as uint4 from global into registers, store as uint4 into shared, then __syncthreads.
    // TODO 4: per k16 step ks (0 and 16), fragments:
    //   A (row-major 16x16 per mi): ldmatrix_x4 with lane address &sA[w_m + mi*16 + lane % 16][ks + (lane / 16) * 8].
    //     Check against the mma layout in roofline/ptx/mma_sync.cuh that matrices 0..3 land in a[0..3].
    //   B (16x8 per ni, but stored k-major): one ldmatrix_x4_trans covers two n8 tiles:
    //     lane address &sB[ks + lane % 8 + ((lane / 8) % 2) * 8][w_n + nj*16 + (lane / 16) * 8];
    //     r[0], r[1] are (b0, b1) of n tile 2*nj, r[2], r[3] of n tile 2*nj+1.
    //   Then mma_bf16_16816(acc[mi][ni], fA[mi], fB[ni][0], fB[ni][1]) for all MI x NI tiles.
    //   __syncthreads before the next tile overwrites shared memory.
    // TODO 5: store: acc[mi][ni][0..1] is C[w_m + mi*16 + g][w_n + ni*8 + 2q, +1], [2..3] row g + 8
    //   (plus the block's origin). Convert pairs with __floats2bfloat162_rn and store __nv_bfloat162.
}

void launch_tensor_core(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K,
                        cudaStream_t stream) {
    dim3 grid(N / BN, M / BM);
    gemm_tensor_core<<<grid, kThreads, 0, stream>>>(A, B, C, M, N, K);
}

}  // namespace

ROOFLINE_GEMM_VARIANT(r8_tensor_core, launch_tensor_core);
