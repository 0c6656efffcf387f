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
// and empty barriers, initialised for you) and the store of the accumulators. Write (lesson
// 06, sections 5-7 and 10.4); what it must do, and why:
//   producer, warpgroup 0: gives up registers first (wgmma::release_registers: setmaxnreg
//     acts per warpgroup, so the whole warpgroup calls it), then one thread runs part 2's
//     producer over K slices: a stage refilled only once its empty barrier has completed
//     (the first pass through the ring passes at once), both slices announced on full.
//   consumers, warpgroups 1 and 2: take the registers (wgmma::claim_registers); consumer c
//     owns the tile's rows 64c..64c+63: its own rows of the A slice (a descriptor 64 rows
//     further into the stage), all of the Bt slice. Per K slice rung 4's chain of wgmmas, but
//     without waiting for all of them: keep one group in flight (wait<1>), so the tensor
//     cores always have the next slice's work. The hazard that moves: the slice whose wgmmas
//     are known finished is the PREVIOUS one, so that is the stage a consumer may free (one
//     arrival per warp on its empty barrier); after the last slice, wait for everything and
//     store_tile() (no later tile of this block needs the stage).
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
