// Lab 06, rung 1 (solution): row sums fed by TMA into two shared-memory buffers, one
// mbarrier each. The first rung of the lab's ladder: the ring (part 1) generalises it
// from two stages to kStages.
//
// The grid is persistent (one block per SM) and walks the same 32 x 256 tiles as part 1:
// all column tiles of one group of 32 rows, then the next group the block owns. Tile i
// lives in buffer i % 2. At the top of iteration i, thread 0 asks the TMA unit for tile
// i + 1 (its buffer was freed by the __syncthreads that ended iteration i - 1); then
// every thread waits on tile i's barrier, adds its rows, and meets the others at a
// __syncthreads so that buffer i % 2 may be refilled.
//
// Parity: buffer b's barrier completes one phase per tile it receives; tile i is the
// (i / 2)-th tile of buffer i % 2, so its phase has parity (i / 2) & 1.
//
// Bytes in flight: while the block sums tile i, only tile i + 1 is on its way: one
// 16 KiB tile per SM, against the ~19 KiB that Little's law asks for at ~600 ns (a tile's
// latency under load: the first byte's, plus the tile streaming in). Expected: ~80-90%
// of cudaMemcpy, short of the ring's deeper pipeline.
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/contract/reduction.cuh"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>

#include "given/row_sum_double_buffer.cuh"

namespace {

__global__ void __launch_bounds__(kThreads) row_sum_double_buffer(const __grid_constant__ CUtensorMap x_map,
                                                                  float* sums, int rows, int cols) {
    extern __shared__ __align__(128) unsigned char shared_bytes[];
    auto& shared = *reinterpret_cast<SharedStorage*>(shared_bytes);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

    const int col_tiles = cols / kTileCols;
    const int my_groups = (rows / kTileRows - blockIdx.x + gridDim.x - 1) / gridDim.x;
    const int my_tiles = my_groups * col_tiles;
    // The i-th tile of this block: group blockIdx.x + (i / col_tiles) * gridDim.x, column tile i % col_tiles.
    auto issue = [&](int i) {
        const int buffer = i % 2;
        const int group = blockIdx.x + (i / col_tiles) * gridDim.x;
        roofline::mbarrier::arrive_expect_tx(&shared.full[buffer], kTileBytes);
        roofline::tma::load_2d(&shared.tiles[buffer][0][0], &x_map, group * kTileRows, (i % col_tiles) * kTileCols,
                               &shared.full[buffer]);
    };

    if (threadIdx.x == 0) {
        roofline::tma::prefetch_map(&x_map);
        roofline::mbarrier::init(&shared.full[0], 1);
        roofline::mbarrier::init(&shared.full[1], 1);
        roofline::mbarrier::fence_init();
        if (my_tiles > 0) issue(0);
    }
    __syncthreads();

    float partial[kRowsPerWarp] = {};
    for (int i = 0; i < my_tiles; ++i) {
        if (threadIdx.x == 0 && i + 1 < my_tiles) issue(i + 1);  // the other buffer is free: prefetch

        const int buffer = i % 2;
        roofline::mbarrier::wait(&shared.full[buffer], (i / 2) & 1);
        for (int r = 0; r < kRowsPerWarp; ++r) {
            uint4 packed = reinterpret_cast<const uint4*>(&shared.tiles[buffer][warp * kRowsPerWarp + r][0])[lane];
            partial[r] += roofline::reduction::sum_of_8_bf16(packed);
        }
        __syncthreads();  // every thread is done with this buffer: the next iteration's prefetch may refill it

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
#include "given/row_sum_double_buffer_launch.cuh"

ROOFLINE_ROW_SUM_VARIANT(row_sum_double_buffer, launch_row_sum_double_buffer);
