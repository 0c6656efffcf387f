// Lab 06, rung 1: row sums fed by TMA into two shared-memory buffers, one mbarrier each.
// sums[r] = sum over c of x[r][c]; x is [rows][cols] bf16, the sums fp32.
// The first rung of the ladder; part 1's ring generalises it from two buffers to kStages.
//
// The launch below is written for you: a persistent grid (one block per SM), a tensor
// map that cuts x into 32 x 256 tiles, and the shared memory (two tiles and one "full"
// mbarrier per buffer). Block b owns row groups b, b + gridDim.x, ... (32 rows each)
// and walks their tiles in order: all column tiles of its first group, then of the
// next. Tile i of the block goes to buffer i % 2. Write the kernel:
//   1. thread 0: init both full barriers for 1 arrival (mbarrier::init), fence_init(),
//      then start tile 0: mbarrier::arrive_expect_tx(&full[0], kTileBytes) and
//      tma::load_2d(tile, &x_map, first row, first column, &full[0]);
//      everyone: __syncthreads();
//   2. for the i-th tile: thread 0 first starts tile i + 1 into the other buffer (if
//      there is one); then everyone waits on full[i % 2]. Which parity? Each buffer's
//      barrier completes one phase per tile it receives, and tile i is buffer i % 2's
//      (i / 2)-th. Each warp adds its 4 rows (one 16-byte load per lane covers a
//      256-wide row; reduction::sum_of_8_bf16 adds the 8 values of one load); then
//      __syncthreads() so that nobody still reads the buffer the next prefetch refills;
//   3. after a group's last column tile: reduce each row across the warp
//      (__shfl_xor_sync) and lane 0 writes sums[row].
// Predict first: while the block sums one tile, how many bytes are on their way to
// this SM, and how many does Little's law ask for?
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
    const int col_tiles = cols / kTileCols;
    const int my_groups = (rows / kTileRows - blockIdx.x + gridDim.x - 1) / gridDim.x;
    const int my_tiles = my_groups * col_tiles;
    // TODO: steps 1-3 above.
}

}  // namespace

// The launch (given).
#include "given/row_sum_double_buffer_launch.cuh"

ROOFLINE_ROW_SUM_VARIANT(row_sum_double_buffer, launch_row_sum_double_buffer);
