// Lab 06, rung 1: row sums fed by TMA into two shared-memory buffers, one mbarrier each.
// sums[r] = sum over c of x[r][c]; x is [rows][cols] bf16, the sums fp32.
// The first rung of the ladder; part 1's ring generalises it from two buffers to kStages.
//
// The launch below is written for you: a persistent grid (one block per SM), a tensor
// map that cuts x into 32 x 256 tiles, and the shared memory (two tiles and one "full"
// mbarrier per buffer). Block b owns row groups b, b + gridDim.x, ... (32 rows each)
// and walks their tiles in order: all column tiles of its first group, then of the
// next. Tile i of the block goes to buffer i % 2. Write the kernel (lesson 06, sections 2-3
// and 10.1); what it must guarantee, and why:
//   - each full barrier exists before anything uses it: initialised by one thread for the
//     one arrival it will get (the thread that starts the copies), the init made visible to
//     the TMA unit (mbarrier::fence_init) and to the block before any copy or wait;
//   - a barrier completes only when its arrival has come and the bytes announced for it
//     (arrive_expect_tx) have landed: announce exactly one tile's bytes per tile;
//   - the next tile is on its way while this one is summed: that is the rung (Little's law,
//     section 4, says how many bytes in flight an SM needs; count what two buffers give);
//   - a wait names the phase tile i completes. Each buffer's barrier completes one phase per
//     tile it receives, and a phase is named by its parity: work it out from how many tiles
//     that buffer received before tile i;
//   - a buffer is refilled only once every warp has finished reading it: the TMA unit does
//     not wait for a slow warp, and would overwrite the tile under it;
//   - the sums: a warp takes 4 rows of each 32-row tile; one lane's 16-byte load is 8 values
//     of a 256-wide row (reduction::sum_of_8_bf16); a row's total is the warp's reduction
//     over its lanes once the group's last column tile is in, written once.
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
    // TODO: the kernel the head of this file describes.
}

}  // namespace

// The launch (given).
#include "given/row_sum_double_buffer_launch.cuh"

ROOFLINE_ROW_SUM_VARIANT(row_sum_double_buffer, launch_row_sum_double_buffer);
