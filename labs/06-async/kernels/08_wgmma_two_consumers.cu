// Lab 06, rung 5: a producer and two consumer warpgroups on one 128 x 256 tile per block.
// C[M,N] = A[M,K] Bt[N,K]^T, bf16 in, fp32 accumulate, bf16 out (op gemm_abt).
// What is new against rung 4: the tile doubles to 128 rows for two consumer warpgroups
// (64 rows each, the same Bt slice), the loads move to a producer warpgroup, stages are
// freed on "empty" barriers instead of a block barrier, and setmaxnreg moves registers
// from the producer to the consumers.
//
// Given: the launch (one 384-thread block per 128 x 256 tile of C, in raster order,
// blockIdx.x along N; not persistent), the tensor maps (A in 128 x 64 boxes, Bt in
// 256 x 64 boxes, both 128-byte swizzled), the shared memory (a 4-stage ring with full
// and empty barriers, initialised for you) and the store of the accumulators. Write:
//   producer, warpgroup 0: wgmma::release_registers<40>() (the whole warpgroup: setmaxnreg
//     acts per warpgroup); then thread 0 alone, for each K slice k into stage k % kStages:
//     wait on empty[stage] (which parity? on the first pass through the ring the wait must
//     return at once: a fresh barrier counts parity 1 as complete), arrive_expect_tx(
//     full[stage], both tiles' bytes), load_2d the A slice (row tile_m * 128, column k * 64)
//     and the Bt slice (row tile_n * 256, column k * 64).
//   consumers, warpgroups 1 and 2: wgmma::claim_registers<232>(); consumer c computes rows
//     64c..64c+63 of the tile. For each K slice: wait on full[stage]; descriptors with
//     wgmma::sw128_kmajor_descriptor for its A rows (64 rows further = 64 * 64 elements)
//     and for the whole Bt slice; wgmma::fence(); four mma_m64n256k16_bf16, stepping 2
//     (32 bytes) along K, the first with accumulate = false; commit(); wait<1>(); then
//     lane 0 of each warp arrives on the PREVIOUS slice's empty barrier. After the last
//     slice: wait<0>() and store_tile().
// Predict first: what does the 128-row tile do to the bytes pulled from L2 per FLOP,
// against rung 4, and what does each block still lose at its start and its end?
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/contract/gemm.cuh"
#include "roofline/ptx/wgmma.cuh"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>

#include "given/wgmma_two_consumers.cuh"

namespace {

__global__ void __launch_bounds__(kThreads, 1) gemm_two_consumers(const __grid_constant__ CUtensorMap a_map,
                                                                  const __grid_constant__ CUtensorMap b_map,
                                                                  __nv_bfloat16* C, int N, int K) {
    extern __shared__ unsigned char shared_raw[];
    auto base = (reinterpret_cast<std::uintptr_t>(shared_raw) + 1023) & ~std::uintptr_t(1023);
    auto& shared = *reinterpret_cast<SharedStorage*>(base);

    const int warpgroup = threadIdx.x / 128;
    const int tile_n = blockIdx.x, tile_m = blockIdx.y;
    const int k_slices = K / kBlockK;

    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) {
            roofline::mbarrier::init(&shared.full[s], 1);
            roofline::mbarrier::init(&shared.empty[s], kConsumers * 4);  // one arrival per consumer warp
        }
        roofline::mbarrier::fence_init();
    }
    __syncthreads();

    // TODO: the producer warpgroup and the two consumer warpgroups (see the top of the file).
}

}  // namespace

// The launch (given).
#include "given/wgmma_two_consumers_launch.cuh"

ROOFLINE_GEMM_ABT_VARIANT(wgmma_two_consumers_4096, launch_gemm_two_consumers);
ROOFLINE_GEMM_ABT_VARIANT(wgmma_two_consumers_8192, launch_gemm_two_consumers);
