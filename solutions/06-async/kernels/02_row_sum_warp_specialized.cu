// Lab 06, part 2 (solution): the same row sums with warp specialization.
//
// Warp 8 is the producer: one of its lanes walks the block's tile sequence, waits until
// a stage is empty, arms its "full" barrier and asks the TMA unit for the tile. Warps
// 0-7 are consumers: each waits for a full stage, adds its four rows' elements and
// arrives on the stage's "empty" barrier (one arrival per consumer warp). Nobody waits
// at a block-wide __syncthreads any more: the producer refills a stage as soon as the
// last consumer warp has read it, and a slow warp delays only the stage it holds.
//
// Expected: a little above part 1 (its __syncthreads per tile is the only stall it has),
// ~92-97% of cudaMemcpy.
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
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

    const int col_tiles = cols / kTileCols;
    const int my_groups = (rows / kTileRows - blockIdx.x + gridDim.x - 1) / gridDim.x;
    const int my_tiles = my_groups * col_tiles;

    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) {
            roofline::mbarrier::init(&shared.full[s], 1);
            roofline::mbarrier::init(&shared.empty[s], kConsumerWarps);
        }
        roofline::mbarrier::fence_init();
    }
    __syncthreads();

    if (warp == kConsumerWarps) {  // the producer
        if (lane == 0) {
            roofline::tma::prefetch_map(&x_map);
            for (int i = 0; i < my_tiles; ++i) {
                const int stage = i % kStages;
                // Parity of the previous pass's release; on the first pass the wait returns at once.
                roofline::mbarrier::wait(&shared.empty[stage], ((i / kStages) & 1) ^ 1);
                const int group = blockIdx.x + (i / col_tiles) * gridDim.x;
                roofline::mbarrier::arrive_expect_tx(&shared.full[stage], kTileBytes);
                roofline::tma::load_2d(&shared.tiles[stage][0][0], &x_map, group * kTileRows,
                                       (i % col_tiles) * kTileCols, &shared.full[stage]);
            }
        }
        return;
    }

    float partial[kRowsPerWarp] = {};
    for (int i = 0; i < my_tiles; ++i) {
        const int stage = i % kStages;
        roofline::mbarrier::wait(&shared.full[stage], (i / kStages) & 1);
        for (int r = 0; r < kRowsPerWarp; ++r) {
            uint4 packed = reinterpret_cast<const uint4*>(&shared.tiles[stage][warp * kRowsPerWarp + r][0])[lane];
            partial[r] += roofline::reduction::sum_of_8_bf16(packed);
        }
        __syncwarp();
        if (lane == 0) roofline::mbarrier::arrive(&shared.empty[stage]);

        if (i % col_tiles == col_tiles - 1) {
            const int group = blockIdx.x + (i / col_tiles) * gridDim.x;
            for (int r = 0; r < kRowsPerWarp; ++r) {
                float total = partial[r];
                for (int offset = 16; offset > 0; offset /= 2) total += __shfl_xor_sync(0xffffffffu, total, offset);
                if (lane == 0) sums[group * kTileRows + warp * kRowsPerWarp + r] = total;
                partial[r] = 0;
            }
        }
    }
}

}  // namespace

// The launch (given).
#include "given/row_sum_warp_specialized_launch.cuh"

ROOFLINE_ROW_SUM_VARIANT(row_sum_warp_specialized, launch_row_sum_specialized);
