// Lab 06, FP8 rung 1: C[M,N] (bf16) = scale_a * scale_b * A[M,K] Bt[N,K]^T, A and Bt in e4m3
// (op gemm_fp8; contract in roofline/gemm.cuh). scale_a and scale_b point to one float each,
// in device memory. K is a multiple of 128; M and N are any size (the given producer and
// store handle the ragged edges).
//
// FP8 doubles the tensor cores' rate (H200: 1,979 TFLOP/s dense against bf16's 989) and
// halves the operand bytes. Two things change against part 3's bf16 kernel:
//   - the operands: 8-bit wgmma reads both A and B from shared memory K-major only (no
//     transposed form exists), which is why the weight comes as Bt[N,K]; a 128-wide K block
//     is 128 bytes, one swizzle row, so the descriptors are the bf16 ones;
//   - the accumulation: Hopper's FP8 wgmma keeps only about 14 significant bits of its
//     accumulator between k32 steps and truncates the rest. Summed over all of K in the
//     wgmma's registers, C comes out ~1% low at K = 16384 (all-positive data: the grader's),
//     outside the tolerance (lessons/06-async.md, "FP8", derives it). The fix is the PROMOTION:
//     every K block (4 wgmmas, 128 elements of K), add the wgmma's partial sums into a second
//     set of fp32 registers with ordinary FADDs, and start the next block's wgmmas afresh.
//
// Given (given/fp8_gemm.cuh): the tile sizes (128 x 128 tiles, 128-wide K blocks, a 6-stage
// ring), SharedStorage and shared_storage(), init_barriers, tile_position, run_producer (the
// whole producer warpgroup's job), fragment_row and store_tile_bf16 (a consumer's 64 x 128
// part of C, times a scale, bounded by M and N); and the wgmma itself,
// roofline::wgmma::mma_m64n128k32_e4m3. Write, in gemm_fp8 below:
//   1. the producer warpgroup: give back registers (release_registers<40>), and thread 0 runs
//      run_producer; the consumer warpgroups claim registers (claim_registers<232>);
//   2. each consumer (warpgroup 1 or 2: rows 64 (warpgroup - 1) of the tile), for each of the
//      block's tiles (blockIdx.x, then + gridDim.x) and each K block, counting `iteration`
//      across tiles as run_producer does: wait for the stage's full barrier (parity: the
//      pass), four wgmmas on descriptors of its 64 rows of A and the stage's Bt (the K step is
//      32 bytes: + 2 on a descriptor), the first one NOT accumulating; commit; wait<0>; one
//      arrival per warp on the stage's empty barrier; then the promotion into the fp32 sums;
//   3. after the tile's last K block: store_tile_bf16 with scale_a[0] * scale_b[0].
// Why wait<0> and not part 3's wait<1>: the next K block's wgmmas overwrite the registers the
// promotion reads. What keeps the tensor cores busy meanwhile?
// Predict first: the tile is 128 x 128 (why not 128 x 256? count the registers). How many
// FLOPs per byte does one K block bring from L2, and what L2 bandwidth would cuBLASLt's
// 8192^3 rate (~1,400 TFLOP/s) need at that intensity?
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/ptx/wgmma.cuh"

#include "given/fp8_gemm.cuh"

namespace {

__global__ void __launch_bounds__(kThreads, 1) gemm_fp8(const __grid_constant__ CUtensorMap a_map,
                                                        const __grid_constant__ CUtensorMap b_map,
                                                        const float* scale_a, const float* scale_b,
                                                        __nv_bfloat16* C, int M, int N, int K) {
    SharedStorage& shared = shared_storage();
    init_barriers(shared);
    __syncthreads();
    // TODO: the producer warpgroup (step 1) and the two consumer warpgroups with the
    // promotion (steps 2 and 3; see the top of the file).
    (void)a_map, (void)b_map, (void)scale_a, (void)scale_b, (void)C, (void)M, (void)N, (void)K;
}

}  // namespace

// The launch (given).
#include "given/fp8_gemm_launch.cuh"

ROOFLINE_GEMM_FP8_VARIANT(fp8_gemm_4096, launch_gemm_fp8);
ROOFLINE_GEMM_FP8_VARIANT(fp8_gemm_8192, launch_gemm_fp8);
