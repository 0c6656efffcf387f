// Lab 06, part 1 (solution): row sums fed by TMA through a ring of shared-memory stages.
//
// The grid is persistent (one block per SM) and walks a sequence of 32 x 256 tiles:
// all column tiles of one group of 32 rows, then the next group the block owns. Thread 0
// keeps kStages tiles in flight: it arms a stage's "full" barrier with the bytes to
// expect and asks the TMA unit for the tile; every thread waits on that barrier,
// adds its rows' elements, and after a __syncthreads (nobody reads the stage any more)
// thread 0 refills the stage with the tile kStages further on.
//
// Bytes in flight: Little's law wants bandwidth x latency ~ 4.8 TB/s x ~1 us ~ 4.8 MB
// over 132 SMs ~ 36 KiB per SM; 6 stages of 16 KiB keep ~96 KiB asked for per SM.
// Expected: ~90-95% of cudaMemcpy (the TMA unit reads at the read-only rate, and the
// only stall is the block-wide barrier before each refill).
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/contract/reduction.cuh"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>

#include "given/row_sum_tma_ring.cuh"

namespace {

__global__ void __launch_bounds__(kThreads) row_sum_ring(const __grid_constant__ CUtensorMap x_map, float* sums,
                                                         int rows, int cols) {
    extern __shared__ __align__(128) unsigned char shared_bytes[];
    auto& shared = *reinterpret_cast<SharedStorage*>(shared_bytes);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

    const int col_tiles = cols / kTileCols;
    const int my_groups = (rows / kTileRows - blockIdx.x + gridDim.x - 1) / gridDim.x;
    const int my_tiles = my_groups * col_tiles;
    // The i-th tile of this block: group blockIdx.x + (i / col_tiles) * gridDim.x, column tile i % col_tiles.
    auto issue = [&](int i) {
        int stage = i % kStages;
        int group = blockIdx.x + (i / col_tiles) * gridDim.x;
        roofline::mbarrier::arrive_expect_tx(&shared.full[stage], kTileBytes);
        roofline::tma::load_2d(&shared.tiles[stage][0][0], &x_map, group * kTileRows, (i % col_tiles) * kTileCols,
                               &shared.full[stage]);
    };

    if (threadIdx.x == 0) {
        roofline::tma::prefetch_map(&x_map);
        for (int s = 0; s < kStages; ++s) roofline::mbarrier::init(&shared.full[s], 1);
        roofline::mbarrier::fence_init();
        for (int i = 0; i < kStages && i < my_tiles; ++i) issue(i);
    }
    __syncthreads();

    float partial[kRowsPerWarp] = {};
    for (int i = 0; i < my_tiles; ++i) {
        const int stage = i % kStages;
        roofline::mbarrier::wait(&shared.full[stage], (i / kStages) & 1);
        for (int r = 0; r < kRowsPerWarp; ++r) {
            uint4 packed = reinterpret_cast<const uint4*>(&shared.tiles[stage][warp * kRowsPerWarp + r][0])[lane];
            partial[r] += roofline::reduction::sum_of_8_bf16(packed);
        }
        __syncthreads();  // every thread is done with this stage
        if (threadIdx.x == 0 && i + kStages < my_tiles) issue(i + kStages);

        if (i % col_tiles == col_tiles - 1) {  // the group's last column tile: finish its rows
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
#include "given/row_sum_tma_ring_launch.cuh"

ROOFLINE_ROW_SUM_VARIANT(row_sum_tma_ring, launch_row_sum_ring);
