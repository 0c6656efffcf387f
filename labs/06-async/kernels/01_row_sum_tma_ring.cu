// Lab 06, part 1: row sums fed by TMA through a ring of shared-memory stages.
// sums[r] = sum over c of x[r][c]; x is [rows][cols] bf16, the sums fp32.
//
// The launch below is written for you: a persistent grid (one block per SM), a tensor
// map that cuts x into 32 x 256 tiles, and the shared memory (kStages tiles and one
// "full" mbarrier per stage). Block b owns row groups b, b + gridDim.x, ... (32 rows
// each) and walks their tiles in order: all column tiles of its first group, then of
// the next. Write the kernel: rung 1's (kernels/06_row_sum_double_buffer.cu) with kStages
// buffers in a ring instead of two (lesson 06, section 4 and 10.2). What changes, and why:
//   - kStages tiles start before the first is summed, so kStages tiles are in flight: the
//     ring's depth is the bytes in flight that Little's law asks of an SM;
//   - tile i lives in stage i % kStages, and a stage's barrier completes one phase per tile
//     it receives: the parity of tile i's wait follows (section 3's figure);
//   - a stage is refilled, with the tile kStages further on, only after every warp has read
//     it; here a block-wide barrier says so (part 2 replaces it by "empty" barriers);
//   - the sums as in rung 1.
// Predict first: how many bytes must be in flight per SM to keep HBM busy?
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
    const int col_tiles = cols / kTileCols;
    const int my_groups = (rows / kTileRows - blockIdx.x + gridDim.x - 1) / gridDim.x;
    const int my_tiles = my_groups * col_tiles;
    // TODO: the kernel the head of this file describes.
}

}  // namespace

// The launch (given).
#include "given/row_sum_tma_ring_launch.cuh"

ROOFLINE_ROW_SUM_VARIANT(row_sum_tma_ring, launch_row_sum_ring);
