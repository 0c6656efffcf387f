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
    // TODO 1: the shared tiles, plain row-major as in global memory (A's rows k-contiguous,
    //   B's n-contiguous), 16-byte aligned: ldmatrix reads 16-byte rows.
    // TODO 2: the warp's 64 x 32 tile in the block tile (2 x 4 warps).
    // TODO 3: loading: a tile is 512 chunks of 16 bytes (8 bf16 of one row), 2 per thread,
    //   global -> registers -> shared, 16 bytes at a time; neighbouring threads take
    //   neighbouring chunks of a row (coalesced). Then a barrier.
    // TODO 4: per k16 step, the warp's fragments and its MI x NI mmas:
    //   A: one ldmatrix_x4 per 16-row mma tile gives a[0..3]; which lane addresses which row
    //     of which 8x8 matrix follows from ldmatrix_x4's comment and mma_sync.cuh's A table.
    //   B: stored k-major in sB (a row is one k), but each B register wants two consecutive k
    //     of one n: ldmatrix_x4_trans transposes each 8x8 matrix on the way, and its four
    //     matrices can cover two n8 tiles (b0 and b1 of each). Work out the lane addresses the
    //     same way, and check the registers against the B table.
    //   Then every (mi, ni) mma of the warp tile, each A fragment reused across the NI tiles
    //   and each B fragment across the MI. A barrier before the next tile overwrites sA, sB.
    // TODO 5: store: mma_sync.cuh's C table says which two adjacent columns of which two rows
    //   each accumulator pair is; convert each pair to bf16 and store it as one 4-byte value.
}

void launch_tensor_core(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K,
                        cudaStream_t stream) {
    dim3 grid(N / BN, M / BM);
    gemm_tensor_core<<<grid, kThreads, 0, stream>>>(A, B, C, M, N, K);
}

}  // namespace

ROOFLINE_GEMM_VARIANT(r8_tensor_core, launch_tensor_core);
