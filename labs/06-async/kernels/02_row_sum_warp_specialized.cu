// Lab 06, part 2: the row sums of part 1 with warp specialization.
//
// Nine warps: warps 0-7 consume (4 rows of each tile each, as in part 1), warp 8
// produces. Each stage now has two barriers: "full" (1 arrival + the tile's bytes) and
// "empty" (kConsumerWarps arrivals). Write the kernel:
//   1. thread 0 inits both barriers of every stage, fence_init(); __syncthreads();
//   2. producer (warp 8, lane 0 only): for each tile i, wait on empty[i % kStages] with
//      parity ((i / kStages) & 1) ^ 1 (on the first pass through the ring that returns
//      at once), then arrive_expect_tx on full and load_2d, as in part 1;
//   3. consumers: wait full, add, __syncwarp(), lane 0 arrives on empty; no __syncthreads
//      in the loop. Finish each group's rows as in part 1.
// Predict first: what did part 1's __syncthreads per tile cost, and what will this gain?
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/contract/reduction.cuh"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>

#include "given/row_sum_warp_specialized.cuh"

namespace {

__global__ void __launch_bounds__(kThreads) row_sum_specialized(const __grid_constant__ CUtensorMap x_map,
                                                                float* sums, int rows, int cols) {
    extern __shared__ __align__(128) unsigned char shared_bytes[];
    auto& shared = *reinterpret_cast<SharedStorage*>(shared_bytes);
    const int col_tiles = cols / kTileCols;
    const int my_groups = (rows / kTileRows - blockIdx.x + gridDim.x - 1) / gridDim.x;
    const int my_tiles = my_groups * col_tiles;
    // TODO: steps 1-3 above.
}

}  // namespace

// The launch (given).
#include "given/row_sum_warp_specialized_launch.cuh"

ROOFLINE_ROW_SUM_VARIANT(row_sum_warp_specialized, launch_row_sum_specialized);
